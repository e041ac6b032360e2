package hookrelay_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hookrelay/hookrelay/internal/config"
)

// docsBaseConfig is what a config snippet of the guides is read on top
// of: the sources the snippets' destinations and tokens name. A snippet's
// top-level keys replace the base's.
const docsBaseConfig = `
sources:
  - {name: stripe, verify: stripe, secrets: ["${BASE_STRIPE_SECRET}"]}
  - {name: github, verify: github, secrets: ["${BASE_GITHUB_SECRET}"]}
`

// fileSecret is a secret read from a file.
var fileSecret = regexp.MustCompile(`file:([^"'\s}$]+)`)

// TestDocsConfigSnippets reads every ```yaml block of the README and the
// guides as the relay reads its config, with made-up values for the
// variables and files it names: a key the config does not know, a value
// of the wrong kind or a setting the relay refuses fails the test. A block
// that shows other YAML says so in its info string (```yaml compose) and
// is left alone.
func TestDocsConfigSnippets(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, page := range append(pages, "README.md") {
		for _, b := range yamlBlocks(readDoc(t, page)) {
			checked++
			where := fmt.Sprintf("%s:%d", page, b.line)
			dir := t.TempDir()
			data, err := onBase(fakeFiles(t, dir, b.text))
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if _, err := config.Parse(data, dir, fakeEnv); err != nil {
				t.Errorf("%s: the relay refuses this config:\n%v\n%s", where, err, b.text)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no ```yaml block found")
	}
}

// yamlBlock is one config snippet of a page.
type yamlBlock struct {
	line int
	text string
}

// yamlBlocks returns the page's ```yaml blocks, and ```yaml run FILE ones.
func yamlBlocks(text string) []yamlBlock {
	var out []yamlBlock
	var cur *yamlBlock // the yaml block being read
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		switch {
		case fenced && strings.HasPrefix(line, "```"):
			if cur != nil {
				out = append(out, *cur)
			}
			fenced, cur = false, nil
		case fenced:
			if cur != nil {
				cur.text += line + "\n"
			}
		case strings.HasPrefix(line, "```"):
			fenced = true
			info := strings.Fields(strings.TrimPrefix(line, "```"))
			if len(info) == 1 && info[0] == "yaml" || len(info) == 3 && info[0] == "yaml" && info[1] == "run" {
				cur = &yamlBlock{line: i + 2}
			}
		}
	}
	return out
}

// onBase returns the snippet's top-level keys laid over docsBaseConfig.
func onBase(snippet string) ([]byte, error) {
	var base, doc yaml.Node
	if err := yaml.Unmarshal([]byte(docsBaseConfig), &base); err != nil {
		return nil, fmt.Errorf("parse base config: %w", err)
	}
	if err := yaml.Unmarshal([]byte(snippet), &doc); err != nil {
		return nil, fmt.Errorf("parse yaml: %w", err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a config: want a mapping of keys (mark other YAML with a word after yaml)")
	}
	top, snip := base.Content[0], doc.Content[0]
	for i := 0; i+1 < len(snip.Content); i += 2 {
		key, value := snip.Content[i], snip.Content[i+1]
		replaced := false
		for j := 0; j+1 < len(top.Content); j += 2 {
			if top.Content[j].Value == key.Value {
				top.Content[j+1], replaced = value, true
			}
		}
		if !replaced {
			top.Content = append(top.Content, key, value)
		}
	}
	out, err := yaml.Marshal(&base)
	if err != nil {
		return nil, fmt.Errorf("write config: %w", err)
	}
	return out, nil
}

// fakeEnv makes up a value of the right shape for each variable a snippet
// names; secrets differ by name, as the relay wants of destinations.
func fakeEnv(name string) string {
	switch {
	case strings.Contains(name, "DATABASE"):
		return "postgres://hookrelay@127.0.0.1:5432/hookrelay"
	case strings.HasSuffix(name, "_URL"):
		return "https://alerts.example.com/hookrelay"
	case strings.Contains(name, "PAYLOAD_KEY"):
		return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%-32.32s", name)))
	}
	return "whsec_" + base64.StdEncoding.EncodeToString([]byte("docs "+name))
}

// fakeFiles writes a made-up secret of the right shape for each file:
// secret of the snippet, in dir: an absolute path is moved under dir, a
// relative one is read there as the relay reads it next to its config.
func fakeFiles(t *testing.T, dir, snippet string) string {
	t.Helper()
	return fileSecret.ReplaceAllStringFunc(snippet, func(m string) string {
		path := filepath.Join(dir, strings.TrimPrefix(m, "file:"))
		value := fakeEnv(strings.ToUpper(filepath.Base(path)))
		if strings.Contains(path, "key") {
			value = fakeEnv("PAYLOAD_KEY " + path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(value+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return "file:" + path
	})
}
