package config

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzParse checks that Parse never panics, that what it accepts validates,
// and that the masked output hides every secret and loads back to the same
// configuration. Its seeds are in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("file-secret\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	getenv := env(map[string]string{
		"A":       "alpha",
		"PORT":    "9000",
		"SIGNING": testSigning,
		"TOKEN":   "token-value",
		"FILE":    "file:secret",
	})
	f.Add([]byte(productExample))
	f.Add([]byte(validDoc))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, dir, getenv)
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				if len(ve.Problems) == 0 {
					t.Fatal("a ValidationError without problems")
				}
				for _, p := range ve.Problems {
					if p.Path == "" || p.Message == "" {
						t.Fatalf("problem without a path or message: %q", p)
					}
				}
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse accepted a config that Validate rejects: %v", err)
		}
		var out bytes.Buffer
		if err := c.WriteMasked(&out); err != nil {
			t.Fatalf("WriteMasked: %v", err)
		}
		checkMasked(t, out.Bytes())

		back, err := Parse(out.Bytes(), dir, getenv)
		if err != nil {
			// The masked secrets themselves may not load; nothing else may.
			for _, p := range problems(t, err) {
				if !strings.Contains(p, ".secret: ") {
					t.Fatalf("masked output does not load: %s\n%s", p, out.String())
				}
			}
			return
		}
		var again bytes.Buffer
		if err := back.WriteMasked(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), again.Bytes()) {
			t.Fatalf("masked output changes when loaded back:\n%s\nthen\n%s", out.String(), again.String())
		}
	})
}

// checkMasked decodes WriteMasked's output with the YAML library alone and
// checks that every secret in it is "****" or "".
func checkMasked(t *testing.T, out []byte) {
	t.Helper()
	var m Config
	if err := yaml.Unmarshal(out, &m); err != nil {
		t.Fatalf("masked output is not YAML: %v\n%s", err, out)
	}
	ok := func(s string) bool { return s == "" || s == masked }
	for _, tok := range m.Tokens {
		if !ok(tok.Secret) {
			t.Fatalf("token secret %q not masked", tok.Secret)
		}
	}
	for _, s := range m.Sources {
		for _, sec := range s.Secrets {
			if !ok(sec) {
				t.Fatalf("source secret %q not masked", sec)
			}
		}
	}
	for _, d := range m.Destinations {
		if !ok(d.Secret) {
			t.Fatalf("destination secret %q not masked", d.Secret)
		}
	}
	if u, err := url.Parse(m.Database); err == nil && u.User != nil {
		if p, set := u.User.Password(); set && p != masked {
			t.Fatalf("database password %q not masked", p)
		}
	}
}
