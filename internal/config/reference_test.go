package config

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// referencePath is the configuration reference, generated from the Config
// type, its fields' doc comments and the defaults below.
const referencePath = "../../docs/configuration.md"

var updateReference = flag.Bool("update", false, "rewrite "+referencePath)

// TestConfigurationReference regenerates the configuration reference and
// fails when the committed one differs, or when a key has no doc comment:
// every key a file may set is documented, with its default and unit.
func TestConfigurationReference(t *testing.T) {
	docs := fieldDocs(t)
	var rows []referenceRow
	var missing []string
	walkKeys(reflect.TypeOf(Config{}), "", func(key string, f reflect.StructField, owner string) {
		text := docs[owner+"."+f.Name]
		if text == "" {
			missing = append(missing, fmt.Sprintf("%s (%s.%s)", key, owner, f.Name))
		}
		rows = append(rows, referenceRow{key: key, unit: unitOf(f.Type), def: defaultOf(key), meaning: meaning(f.Name, key, text)})
	})
	if len(missing) > 0 {
		t.Fatalf("keys without a doc comment on their field, which the reference is made of:\n  %s", strings.Join(missing, "\n  "))
	}
	got := renderReference(rows)
	if *updateReference {
		if err := os.WriteFile(referencePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("%v: generate it with go test ./internal/config -run TestConfigurationReference -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the code says: regenerate it with go test ./internal/config -run TestConfigurationReference -update", referencePath)
	}
}

// referenceRow is one key of the reference.
type referenceRow struct {
	key, unit, def, meaning string
}

// walkKeys calls fn for every key under t, depth first in field order: a
// struct field is a section whose own keys follow it, a list of structs
// is written key[].
func walkKeys(t reflect.Type, prefix string, fn func(key string, f reflect.StructField, owner string)) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		fn(key, f, t.Name())
		switch {
		case f.Type.Kind() == reflect.Struct && !isLeaf(f.Type):
			walkKeys(f.Type, key+".", fn)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct && !isLeaf(f.Type.Elem()):
			walkKeys(f.Type.Elem(), key+"[].", fn)
		}
	}
}

// isLeaf reports whether a struct type is one value in a file (a rate).
func isLeaf(t reflect.Type) bool { return t == reflect.TypeOf(Rate{}) }

// unitOf names how a value of type t is written.
func unitOf(t reflect.Type) string {
	switch t {
	case reflect.TypeOf(Duration(0)):
		return "duration"
	case reflect.TypeOf(ByteSize(0)):
		return "size"
	case reflect.TypeOf(Rate{}):
		return "rate"
	case reflect.TypeOf([]Duration{}):
		return "list of durations"
	case reflect.TypeOf([]string{}):
		return "list of strings"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int:
		return "number"
	case reflect.String:
		return "text"
	case reflect.Slice:
		return "list"
	case reflect.Struct:
		return "section"
	}
	return t.Kind().String()
}

// defaultOf is the default of key: from Default, DefaultSource and
// DefaultDestination, the values a file that leaves the key out gets.
func defaultOf(key string) string {
	if key == "sources[].tolerance" {
		return toleranceDefaults()
	}
	var v reflect.Value
	switch {
	case strings.HasPrefix(key, "sources[]."):
		v, key = reflect.ValueOf(DefaultSource("")), strings.TrimPrefix(key, "sources[].")
	case strings.HasPrefix(key, "destinations[]."):
		v, key = reflect.ValueOf(DefaultDestination()), strings.TrimPrefix(key, "destinations[].")
	case strings.Contains(key, "[]"):
		return ""
	default:
		v = reflect.ValueOf(*Default())
	}
	for part := range strings.SplitSeq(key, ".") {
		v = fieldByKey(v, part)
	}
	if v.Kind() == reflect.Struct || v.IsZero() {
		return ""
	}
	if v.Kind() == reflect.Slice {
		parts := make([]string, v.Len())
		for i := range v.Len() {
			parts[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return "`[" + strings.Join(parts, ", ") + "]`"
	}
	return "`" + fmt.Sprint(v.Interface()) + "`"
}

// toleranceDefaults lists the schemes whose provider's tolerance is not
// the relay's own.
func toleranceDefaults() string {
	out := []string{"`" + Duration(signature.DefaultTolerance).String() + "`"}
	for _, s := range signature.Names() {
		if d := signature.DefaultToleranceOf(s); d != signature.DefaultTolerance {
			out = append(out, fmt.Sprintf("%s `%s`", s, Duration(d)))
		}
	}
	return strings.Join(out, "; ")
}

// fieldByKey returns the field of struct v whose yaml name is key.
func fieldByKey(v reflect.Value, key string) reflect.Value {
	for i := range v.NumField() {
		if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ","); name == key {
			return v.Field(i)
		}
	}
	panic("no key " + key)
}

// fieldDocs returns the doc comment of every field of the package's
// struct types, by "Type.Field".
func fieldDocs(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string]string{}
	files, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files["config"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, field := range st.Fields.List {
					for _, name := range field.Names {
						out[ts.Name.Name+"."+name.Name] = strings.TrimSpace(field.Doc.Text())
					}
				}
			}
			return false
		})
	}
	return out
}

// meaning turns a field's doc comment into the reference's text: the Go
// name that opens it becomes the key, and the text is one line.
func meaning(goName, key, text string) string {
	text = strings.Join(strings.Fields(text), " ")
	short := key[strings.LastIndexAny(key, ".]")+1:]
	if rest, ok := strings.CutPrefix(text, goName); ok && (rest == "" || !unicode.IsLetter(rune(rest[0]))) {
		text = "`" + short + "`" + rest
	}
	return strings.ReplaceAll(text, "|", `\|`)
}

// renderReference writes the reference as Markdown.
func renderReference(rows []referenceRow) []byte {
	var b bytes.Buffer
	b.WriteString(`# Configuration reference

<!-- Generated from internal/config (the Config type, its fields' doc
comments, Default, DefaultSource and DefaultDestination) by
go test ./internal/config -run TestConfigurationReference -update.
Do not edit: change the code and regenerate. -->

One YAML file, ` + "`--config`" + ` (default ` + "`./hookrelay.yaml`" + `). In any value,
` + "`${NAME}`" + ` and ` + "`${NAME:-default}`" + ` are read from the environment, and a secret
written ` + "`file:PATH`" + ` is read from that file (relative to the config), again
at every reload. A key left out takes its default. Units: a **duration** is
` + "`90s`, `5m`, `2h`, `30d` or `1d12h`" + `; a **size** is bytes, ` + "`KiB`, `MiB`, `KB` or `MB`" + `;
a **rate** is ` + "`100/s`, `20/m` or `1/h`" + `. ` + "`hookrelay check-config`" + ` prints the
effective configuration, secrets masked.

| key | unit | default | meaning |
| --- | --- | --- | --- |
`)
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.key, r.unit, r.def, r.meaning)
	}
	return b.Bytes()
}
