package config

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads the YAML file at path and returns its configuration with
// ${NAME} values expanded from getenv (os.Getenv when nil), file: secrets
// read, defaults filled and everything validated. A configuration with
// problems is returned as an error wrapping a *ValidationError.
func Load(path string, getenv func(string) string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	c, err := Parse(data, filepath.Dir(abs), getenv)
	if err != nil {
		return nil, fmt.Errorf("load config %s: %w", path, err)
	}
	c.Path = abs
	return c, nil
}

// Parse is Load for a file's contents: relative paths in data (the SQLite
// database, file: secrets) resolve against baseDir. Tokens whose secret is
// empty are dropped, with a warning, after validation.
func Parse(data []byte, baseDir string, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse yaml: %w", err)
	}
	c := Default()
	d := &decoder{getenv: getenv, origins: map[string]origin{}, budget: maxNodes}
	if len(doc.Content) > 0 {
		d.decode(doc.Content[0], reflect.ValueOf(c).Elem(), "")
	}
	c.origins = d.origins
	for i := range c.Sources {
		c.Sources[i].fillHMACDefaults()
	}
	if d.budget < 0 {
		return nil, &ValidationError{Problems: d.problems}
	}
	d.resolveFiles(c, baseDir)
	c.Database = resolveSQLite(c.Database, baseDir)

	problems := d.problems
	if err := c.Validate(); err != nil {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		problems = append(problems, withoutCovered(ve.Problems, d.problems)...)
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	c.dropEmptyTokens()
	c.warnSources()
	return c, nil
}

// maxNodes bounds how many YAML nodes one decode visits, so that aliases
// cannot make a small file expand without end.
const maxNodes = 1 << 18

// origin tells where a value came from: the variables it was expanded from,
// or the file it was read from.
type origin struct {
	vars []string
	file string
}

// hint returns a short parenthesised remark telling how to set an empty
// value that came from o, or "".
func (o origin) hint() string {
	switch {
	case o.file != "":
		return fmt.Sprintf(" (file %s is empty)", o.file)
	case len(o.vars) == 1:
		return fmt.Sprintf(" (is %s set?)", o.vars[0])
	case len(o.vars) > 1:
		return fmt.Sprintf(" (are %s set?)", strings.Join(o.vars, ", "))
	}
	return ""
}

// decoder fills a Config from a yaml.Node tree, expanding ${NAME} in scalar
// values and collecting every problem with its key path.
type decoder struct {
	getenv   func(string) string
	origins  map[string]origin
	problems []Problem
	budget   int
}

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
			*p = DefaultSource()
		case *Destination:
			*p = DefaultDestination()
		}
		d.decode(item, e, fmt.Sprintf("%s[%d]", path, i))
	}
	v.Set(s)
}

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
		kp := join(path, k.Value)
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

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}

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

// resolveFiles replaces every "file:PATH" secret with the file's contents,
// trailing newlines trimmed.
func (d *decoder) resolveFiles(c *Config, baseDir string) {
	read := func(p *string, path string) {
		name, ok := strings.CutPrefix(*p, "file:")
		if !ok {
			return
		}
		if name == "" {
			d.problem(path, "file: names no file")
			return
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(baseDir, name)
		}
		b, err := readSecretFile(name)
		if err != nil {
			d.problem(path, "read secret file: %v", err)
			*p = ""
			return
		}
		*p = string(bytes.TrimRight(b, "\r\n"))
		d.origins[path] = origin{file: name}
	}
	for i := range c.Tokens {
		read(&c.Tokens[i].Secret, fmt.Sprintf("tokens[%d].secret", i))
	}
	for i := range c.Sources {
		for j := range c.Sources[i].Secrets {
			read(&c.Sources[i].Secrets[j], fmt.Sprintf("sources[%d].secrets[%d]", i, j))
		}
	}
	for i := range c.Destinations {
		read(&c.Destinations[i].Secret, fmt.Sprintf("destinations[%d].secret", i))
	}
}

// maxSecretFile bounds the size of a secret file.
const maxSecretFile = 64 << 10

// readSecretFile reads a regular file of at most maxSecretFile bytes, so that
// a path such as /dev/zero or a pipe cannot stall the start.
func readSecretFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSecretFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, maxSecretFile)
	}
	return b, nil
}

// resolveSQLite makes a relative SQLite path absolute against baseDir.
func resolveSQLite(db, baseDir string) string {
	p, ok := sqlitePath(db)
	if !ok || p == "" || p == ":memory:" || filepath.IsAbs(p) || strings.HasPrefix(p, "//") {
		return db
	}
	file, query, hasQuery := strings.Cut(p, "?")
	out := "sqlite:" + filepath.Join(baseDir, file)
	if hasQuery {
		out += "?" + query
	}
	return out
}

// withoutCovered drops the validation problems about a key that already has
// a decoding problem: a value that could not be read should not also be
// reported as missing.
func withoutCovered(problems, decoding []Problem) []Problem {
	var out []Problem
	for _, p := range problems {
		covered := false
		for _, q := range decoding {
			if p.Path == q.Path || strings.HasPrefix(p.Path, q.Path+".") || strings.HasPrefix(p.Path, q.Path+"[") {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}
