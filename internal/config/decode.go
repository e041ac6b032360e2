package config

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxNodes bounds how many YAML nodes one decode visits, so that aliases
// cannot make a small file expand without end.
const maxNodes = 1 << 18

// decoder fills a Config from a yaml.Node tree, expanding ${NAME} in scalar
// values and collecting every problem with its key path.
type decoder struct {
	getenv   func(string) string
	origins  map[string]origin
	problems []Problem
	budget   int
}

// problem records a problem at path.
func (d *decoder) problem(path, format string, args ...any) {
	d.problems = append(d.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// spend counts one visited node and reports whether the budget allows it.
func (d *decoder) spend() bool {
	d.budget--
	if d.budget == -1 {
		d.problem(rootPath(""), "too many values (aliases expand too far)")
	}
	return d.budget >= 0
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// decode stores n into v, which must be addressable.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	if !d.spend() {
		return
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return
		}
		d.decode(n.Alias, v, path)
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // an empty value keeps the default
	}
	if reflect.PointerTo(v.Type()).Implements(textUnmarshaler) {
		s, ok := d.scalar(n, path)
		if !ok {
			return
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			d.problem(path, "%v", err)
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		if s, ok := d.scalar(n, path); ok {
			v.SetString(s)
		}
	case reflect.Bool:
		s, ok := d.scalar(n, path)
		if !ok {
			return
		}
		switch strings.ToLower(s) {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			d.problem(path, "want true or false, got %q", s)
		}
	case reflect.Int:
		s, ok := d.scalar(n, path)
		if !ok {
			return
		}
		i, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			d.problem(path, "want a whole number, got %q", s)
			return
		}
		v.SetInt(int64(i))
	case reflect.Slice:
		d.sequence(n, v, path)
	case reflect.Struct:
		d.mapping(n, v, path)
	default:
		panic(fmt.Sprintf("config: cannot decode into %s", v.Type()))
	}
}

// scalar returns the expanded text of a scalar node.
func (d *decoder) scalar(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.problem(path, "want a single value, got %s", kindName(n))
		return "", false
	}
	s, vars, err := expand(n.Value, d.getenv)
	if err != nil {
		d.problem(path, "%v", err)
		return "", false
	}
	if len(vars) > 0 {
		d.origins[path] = origin{vars: vars}
	} else {
		delete(d.origins, path)
	}
	return s, true
}

// toleranceUnset marks a source's tolerance that its entry has not set
// while the entry is decoded.
const toleranceUnset = Duration(math.MinInt64)

// sequence stores a list into the slice v, each struct element starting from
// its defaults.
func (d *decoder) sequence(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.problem(path, "want a list, got %s", kindName(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		e := s.Index(i)
		switch p := e.Addr().Interface().(type) {
		case *Source:
			// The default tolerance depends on the scheme, known only
			// once the entry is read: until then it is unset, a value
			// no file can write.
			*p = DefaultSource("")
			p.Tolerance = toleranceUnset
		case *Destination:
			*p = DefaultDestination()
		}
		d.decode(item, e, fmt.Sprintf("%s[%d]", path, i))
		if p, ok := e.Addr().Interface().(*Source); ok && p.Tolerance == toleranceUnset {
			p.Tolerance = DefaultSource(p.Verify).Tolerance
		}
	}
	v.Set(s)
}

// mapping stores a mapping into the struct v, key by key, reporting keys
// that v has no field for.
func (d *decoder) mapping(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.problem(rootPath(path), "want a mapping, got %s", kindName(n))
		return
	}
	// Merged mappings (<<: *anchor) first, so that the mapping's own keys
	// override them wherever they are written.
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMerge(n.Content[i]) {
			d.merge(n.Content[i+1], v, path)
		}
	}
	fields := yamlFields(v.Type())
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if isMerge(k) {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			d.problem(rootPath(path), "a key must be a single value, got %s", kindName(k))
			continue
		}
		if path == "" && strings.HasPrefix(k.Value, "x-") {
			continue // a place for anchors, as in Compose files
		}
		kp := join(path, keyName(k.Value))
		idx, ok := fields[k.Value]
		if !ok {
			d.problem(kp, "unknown key%s", suggest(k.Value, fields))
			continue
		}
		if seen[k.Value] {
			d.problem(kp, "key written twice")
			continue
		}
		seen[k.Value] = true
		d.decode(val, v.Field(idx), kp)
	}
}

// merge stores the mappings a merge key (<<) names into v.
func (d *decoder) merge(n *yaml.Node, v reflect.Value, path string) {
	if !d.spend() {
		return
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias != nil {
			d.merge(n.Alias, v, path)
		}
	case yaml.MappingNode:
		d.mapping(n, v, path)
	case yaml.SequenceNode:
		// Earlier mappings win over later ones.
		for i := len(n.Content) - 1; i >= 0; i-- {
			d.merge(n.Content[i], v, path)
		}
	default:
		d.problem(join(path, "<<"), "want a mapping to merge, got %s", kindName(n))
	}
}

// isMerge reports whether k is the merge key "<<".
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

// yamlFields maps the yaml key of each field of struct type t to its index.
func yamlFields(t reflect.Type) map[string]int {
	m := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		m[name] = i
	}
	return m
}

// suggest returns ` (did you mean "x"?)` when a known key is close to key.
func suggest(key string, fields map[string]int) string {
	best, bestDist := "", 3
	for name := range fields {
		if dist := editDistance(key, name); dist < bestDist || dist == bestDist && name < best {
			best, bestDist = name, dist
		}
	}
	if best == "" || bestDist > 2 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between short strings a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// kindName describes a node for a problem message.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if len(n.Value) > 40 {
			return fmt.Sprintf("%q…", n.Value[:40])
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

// keyName returns key as it appears in a key path: quoted unless it is made
// of letters, digits, _ and -.
func keyName(key string) string {
	if key == "" || strings.TrimFunc(key, func(r rune) bool {
		return r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}) != "" {
		return strconv.Quote(key)
	}
	return key
}

// join appends a key to a key path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// rootPath names the top of the document, whose path is empty.
func rootPath(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}
