package config

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	testKey2 = "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=" // 32 bytes of 2
	testKey1 = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=" // 32 bytes of 1
)

func TestEncryptionKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k1.key"), []byte(testKey1+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := productExample + "encryption:\n  keys:\n    - {id: k2, key: \"${HOOKRELAY_KEY_2}\"}\n    - {id: k1, key: \"file:k1.key\"}\n"
	vars := map[string]string{"HOOKRELAY_KEY_2": testKey2}
	for k, v := range productEnv {
		vars[k] = v
	}
	c, err := Parse([]byte(doc), dir, env(vars))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	r, err := c.KeyRing()
	if err != nil {
		t.Fatalf("KeyRing: %v", err)
	}
	if r.Current() != "k2" || !slices.Equal(r.IDs(), []string{"k2", "k1"}) {
		t.Errorf("ring = %v, want k2 sealing then k1", r.IDs())
	}

	var buf bytes.Buffer
	if err := c.WriteMasked(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, secret := range []string{testKey1, testKey2, strings.TrimRight(testKey1, "=")} {
		if strings.Contains(out, secret) {
			t.Errorf("masked output holds a key:\n%s", out)
		}
	}
	if !strings.Contains(out, "id: k2") || !strings.Contains(out, "key: '****'") {
		t.Errorf("masked output lacks the keys' ids or masks:\n%s", out)
	}
}

func TestNoEncryptionKeysNoRing(t *testing.T) {
	t.Parallel()
	c := parse(t, productExample, productEnv)
	if r, err := c.KeyRing(); r != nil || err != nil {
		t.Errorf("KeyRing = %v, %v; want nil, nil", r, err)
	}
}

func TestEncryptionKeyProblems(t *testing.T) {
	t.Parallel()
	doc := productExample + `encryption:
  keys:
    - {id: k1, key: "${UNSET_KEY}"}
    - {id: "bad id", key: ` + testKey1 + `}
    - {id: k3, key: "c2hvcnQta2V5"}
    - {id: k4, key: "not base64 at all!"}
    - {id: k1, key: ` + testKey2 + `}
    - {id: k6}
`
	_, err := Parse([]byte(doc), testBase, env(productEnv))
	got := problems(t, err)
	for _, want := range []string{
		"encryption.keys[0].key: empty (is UNSET_KEY set?)",
		`encryption.keys[1].id: key id "bad id" may hold only letters, digits, '-', '_' and '.'`,
		"encryption.keys[2].key: key is 9 bytes, want 32 (make one with: openssl rand -base64 32)",
		"encryption.keys[3].key: key is not base64 (make one with: openssl rand -base64 32)",
		`encryption.keys[4].id: key id "k1" is listed twice`,
		"encryption.keys[5].key: required (32 bytes in base64, from ${NAME} or file:PATH)",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("problems lack %q; got:\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, p := range got {
		if strings.Contains(p, testKey1) || strings.Contains(p, testKey2) || strings.Contains(p, "c2hvcnQta2V5") {
			t.Errorf("a problem holds a key: %s", p)
		}
	}
}
