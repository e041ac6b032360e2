package config

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteMasked(t *testing.T) {
	t.Parallel()
	doc := strings.Replace(productExample, "database: sqlite:./hookrelay.db",
		"database: postgres://relay:${DB_PASSWORD}@db:5432/relay?sslmode=disable&password=${DB_PASSWORD}", 1)
	doc = strings.Replace(doc, "url: http://127.0.0.1:3000/hooks/billing",
		"url: \"http://svc:${BASIC_PASSWORD}@127.0.0.1:3000/hooks/billing?key=${URL_KEY}\"", 1)
	doc += "alerts: {url: \"https://hooks.chat.example.com/services/${ALERT_PATH}\", secret: \"${ALERT_SECRET}\"," +
		" console_url: \"https://ops:${CONSOLE_PASSWORD}@relay.example.com:8081\"}\n"
	vars := map[string]string{
		"DB_PASSWORD":      "db-password-value",
		"BASIC_PASSWORD":   "basic-password-value",
		"URL_KEY":          "url-key-value",
		"ALERT_PATH":       "alert-path-value",
		"ALERT_SECRET":     "whsec_YWxlcnQtc2lnbmluZy1rZXk=",
		"CONSOLE_PASSWORD": "console-password-value",
	}
	for k, v := range productEnv {
		vars[k] = v
	}
	c := parse(t, doc, vars)

	var buf bytes.Buffer
	if err := c.WriteMasked(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for name, secret := range vars {
		if strings.Contains(out, secret) {
			t.Errorf("output holds the value of %s (%q):\n%s", name, secret, out)
		}
	}
	for _, want := range []string{
		"database: postgres://relay:****@db:5432/relay?password=****&sslmode=****\n",
		"secret: '****'\n",
		`secrets:
      - '****'
      - ""
`,
		"url: http://****:****@127.0.0.1:3000/hooks/billing?key=****\n",
		"url: https://hooks.chat.example.com/****\n",
		"console_url: https://****:****@relay.example.com:8081\n",
		"max_attempts: 7\n", // dev-alice's default
		"max_body: 1MiB\n",
		"rate: 100/s\n",
		"done: 30d\n",
		"backoff:\n      - 10s\n      - 1m\n      - 5m\n      - 30m\n      - 2h\n      - 8h\n",
		"max_concurrency: 512\n",
		"format: json\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The original is left as it was.
	if c.Tokens[0].Secret != "admin-token-value" || c.Sources[0].Secrets[0] != "whsec_stripe_current" ||
		!strings.Contains(c.Database, "db-password-value") || !strings.Contains(c.Destinations[0].URL, "basic-password-value") {
		t.Error("WriteMasked changed the config")
	}

	// The output has the shape of a config file: it reads back with no
	// problem but the masked secrets themselves.
	_, err := Parse(buf.Bytes(), testBase, env(nil))
	for _, p := range problems(t, err) {
		if !strings.Contains(p, ".secret: ") {
			t.Errorf("reading the output back: %s", p)
		}
	}
}

func TestWriteMaskedEmptySecrets(t *testing.T) {
	t.Parallel()
	c := parse(t, "sources: [{name: s, verify: stripe, secrets: [\"${UNSET}\", \"\"]}]\n", nil)
	var buf bytes.Buffer
	if err := c.WriteMasked(&buf); err != nil {
		t.Fatal(err)
	}
	if want := "secrets:\n      - \"\"\n      - \"\"\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, buf.String())
	}
	if strings.Contains(buf.String(), "****") {
		t.Errorf("output masks an empty secret:\n%s", buf.String())
	}
}

func TestMaskURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in                 string
		hideUser, hidePath bool
		want               string
	}{
		{"", false, false, ""},
		{"http://h/x", false, false, "http://h/x"},
		{"http://u@h/x", false, false, "http://u@h/x"},
		{"http://u@h/x", true, false, "http://****@h/x"},
		{"http://u:p@h/x", false, false, "http://u:****@h/x"},
		{"http://u:p@h/x", true, false, "http://****:****@h/x"},
		{"http://h/x?a=1&b=2&a=3", false, false, "http://h/x?a=****&b=****"},
		{"http://h/x?%zz=1", false, false, "http://h/x"},
		{"http://h/x#frag", false, false, "http://h/x#****"},
		{"https://h/services/T/B/X", false, true, "https://h/****"},
		{"https://h/", false, true, "https://h/"},
		{"mailto:someone@example.com", false, false, "mailto:****"},
		{"http://[::1", false, false, "****"},
	}
	for _, tt := range tests {
		if got := maskURL(tt.in, tt.hideUser, tt.hidePath); got != tt.want {
			t.Errorf("maskURL(%q, %v, %v) = %q, want %q", tt.in, tt.hideUser, tt.hidePath, got, tt.want)
		}
	}
}
