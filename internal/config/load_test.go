package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	testSigning = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" // whsec_ + base64
	testBase    = "/srv/relay"
)

// parse parses a YAML document with baseDir testBase and fails the test on
// error.
func parse(t *testing.T, doc string, vars map[string]string) *Config {
	t.Helper()
	c, err := Parse([]byte(doc), testBase, env(vars))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, doc)
	}
	return c
}

// problems returns the lines of a *ValidationError, failing the test when
// err is something else.
func problems(t *testing.T, err error) []string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want a *ValidationError", err, err)
	}
	var out []string
	for _, p := range ve.Problems {
		out = append(out, p.String())
	}
	return out
}

const productExample = `
database: sqlite:./hookrelay.db
listen: ":8080"
admin_listen: "127.0.0.1:8081"
tokens:
  - {name: ops,       role: admin,    secret: "${HOOKRELAY_ADMIN_TOKEN}"}
  - {name: dashboard, role: read,     secret: "${HOOKRELAY_READ_TOKEN}"}
  - {name: alice,     role: consumer, secret: "${ALICE_TOKEN}", destinations: [dev-alice]}
sources:
  - name: stripe
    verify: stripe
    secrets: ["${STRIPE_WEBHOOK_SECRET}", "${STRIPE_WEBHOOK_SECRET_OLD}"]
    tolerance: 5m
    max_body: 1MiB
  - name: github
    verify: github
    secrets: ["${GITHUB_WEBHOOK_SECRET}"]
  - name: shop
    verify: shopify
    secrets: ["${SHOPIFY_WEBHOOK_SECRET}"]
  - name: acme
    verify: standard
    secrets: ["${ACME_WEBHOOK_SECRET}"]
destinations:
  - name: billing
    url: http://127.0.0.1:3000/hooks/billing
    secret: "${BILLING_SIGNING_SECRET}"
    sources: [stripe]
    types: ["invoice.*", "customer.subscription.*"]
    timeout: 10s
    max_attempts: 8
    backoff: [10s, 1m, 5m, 30m, 2h, 8h]
    concurrency: 8
    rate: 100/s
    ordering_key: data.object.id
  - name: dev-alice
    pull: true
    secret: "${ALICE_SIGNING_SECRET}"
    sources: [stripe, github]
retention:
  done: 30d
  dead: 90d
`

var productEnv = map[string]string{
	"HOOKRELAY_ADMIN_TOKEN":  "admin-token-value",
	"HOOKRELAY_READ_TOKEN":   "read-token-value",
	"ALICE_TOKEN":            "alice-token-value",
	"STRIPE_WEBHOOK_SECRET":  "whsec_stripe_current",
	"GITHUB_WEBHOOK_SECRET":  "github-secret-value",
	"SHOPIFY_WEBHOOK_SECRET": "shopify-secret-value",
	"ACME_WEBHOOK_SECRET":    "whsec_YWNtZS1zZWNyZXQ=",
	"BILLING_SIGNING_SECRET": testSigning,
	"ALICE_SIGNING_SECRET":   "whsec_YWxpY2Utc2lnbmluZw==",
}

func TestParseProductExample(t *testing.T) {
	t.Parallel()
	c := parse(t, productExample, productEnv)

	if want := "sqlite:" + filepath.Join(testBase, "hookrelay.db"); c.Database != want {
		t.Errorf("Database = %q, want %q", c.Database, want)
	}
	if len(c.Tokens) != 3 || c.Tokens[2].Secret != "alice-token-value" || !slices.Equal(c.Tokens[2].Destinations, []string{"dev-alice"}) {
		t.Errorf("Tokens = %+v", c.Tokens)
	}
	stripe, ok := c.Source("stripe")
	if !ok {
		t.Fatal(`Source("stripe") not found`)
	}
	if !slices.Equal(stripe.Secrets, []string{"whsec_stripe_current", ""}) {
		t.Errorf("stripe secrets = %q, want the current one and an empty slot 1", stripe.Secrets)
	}
	if stripe.Tolerance.Std() != 5*time.Minute || stripe.MaxBody != MiB {
		t.Errorf("stripe tolerance, max_body = %v, %v", stripe.Tolerance, stripe.MaxBody)
	}
	billing, ok := c.Destination("billing")
	if !ok {
		t.Fatal(`Destination("billing") not found`)
	}
	want := Destination{
		Name:        "billing",
		URL:         "http://127.0.0.1:3000/hooks/billing",
		Secret:      testSigning,
		Sources:     []string{"stripe"},
		Types:       []string{"invoice.*", "customer.subscription.*"},
		Timeout:     Duration(10 * time.Second),
		MaxAttempts: 8,
		Backoff:     DefaultBackoff,
		Concurrency: 8,
		Rate:        Rate{Events: 100, Per: time.Second},
		OrderingKey: "data.object.id",
	}
	if !reflect.DeepEqual(*billing, want) {
		t.Errorf("billing = %+v\nwant %+v", *billing, want)
	}
	alice, _ := c.Destination("dev-alice")
	if !alice.Pull || alice.URL != "" || alice.MaxAttempts != 7 {
		t.Errorf("dev-alice = %+v", alice)
	}
	if c.Retention.Done.Std() != 30*24*time.Hour || c.Retention.Dead.Std() != 90*24*time.Hour {
		t.Errorf("Retention = %+v", c.Retention)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("Warnings = %q, want none", c.Warnings)
	}
	if _, ok := c.Source("nope"); ok {
		t.Error(`Source("nope") found`)
	}
	if _, ok := c.Destination("nope"); ok {
		t.Error(`Destination("nope") found`)
	}
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	c := parse(t, `
sources: [{name: gh, verify: github, secrets: [s]}, {name: h, verify: hmac, secrets: [s], hmac: {header: X-Sig}}]
destinations: [{name: d, url: "https://example.com/h", secret: `+testSigning+`, sources: [gh]}]
`, nil)
	want := Default()
	want.Sources = []Source{
		{Name: "gh", Verify: "github", Secrets: []string{"s"}, Tolerance: Duration(5 * time.Minute), MaxBody: MiB},
		{Name: "h", Verify: "hmac", Secrets: []string{"s"}, Tolerance: Duration(5 * time.Minute), MaxBody: MiB,
			HMAC: HMAC{Header: "X-Sig", Algorithm: "sha256", Encoding: "hex"}},
	}
	want.Destinations = []Destination{{
		Name: "d", URL: "https://example.com/h", Secret: testSigning, Sources: []string{"gh"},
		Timeout: Duration(10 * time.Second), MaxAttempts: 7, Backoff: DefaultBackoff, Concurrency: 4,
	}}
	want.Database = "sqlite:" + filepath.Join(testBase, "hookrelay.db")
	c.origins, want.origins = nil, nil
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", c, want)
	}
	if c.Listen != ":8080" || c.AdminListen != "127.0.0.1:8081" || c.Ingest.MaxConcurrency != 512 ||
		c.Ingest.ReadHeaderTimeout.Std() != 5*time.Second || c.Ingest.IdleTimeout.Std() != 120*time.Second ||
		c.Ingest.RejectionsKeep != 10000 || c.Ingest.RejectionsPerSecond != 50 || c.Ingest.MinUploadRate != KiB ||
		c.Log != (Log{Level: "info", Format: "json"}) || c.Retention.Done.Std() != 720*time.Hour {
		t.Errorf("defaults not filled: %+v", c)
	}
	if got := []Duration{Duration(10 * time.Second), Duration(time.Minute), Duration(5 * time.Minute),
		Duration(30 * time.Minute), Duration(2 * time.Hour), Duration(8 * time.Hour)}; !slices.Equal(DefaultBackoff, got) {
		t.Errorf("DefaultBackoff = %v", DefaultBackoff)
	}
}

func TestParseEmpty(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{"", "# nothing\n", "~\n", "---\n"} {
		c := parse(t, doc, nil)
		if c.Listen != DefaultListen || len(c.Sources) != 0 {
			t.Errorf("Parse(%q) = %+v, want the defaults", doc, c)
		}
	}
}

func TestParseExplicitValuesOverrideDefaults(t *testing.T) {
	t.Parallel()
	c := parse(t, `
database: postgres://relay@db:5432/relay
listen: "0.0.0.0:9000"
admin_listen: "127.0.0.1:9001"
sources:
  - {name: s, verify: slack, secrets: [x], tolerance: 1m, max_body: 512KiB, id_field: event_id, type_field: event.type}
destinations:
  - name: d
    url: http://h/
    secret: `+testSigning+`
    sources: [s]
    timeout: 2s
    max_attempts: 1
    backoff: [1s]
    concurrency: 1
    rate: 20/m
    forward_headers: true
retention: {done: 1d12h, dead: 7d}
alerts: {url: "https://alerts.example.com/hook"}
ingest: {max_concurrency: 10, read_header_timeout: 1s, read_timeout: 2s, write_timeout: 3s, idle_timeout: 4s, max_inflight_bytes: 32MiB, min_upload_rate: 512, rejections_keep: 5, rejections_per_second: 6}
log: {level: debug, format: text}
`, nil)
	if c.Database != "postgres://relay@db:5432/relay" || c.Listen != "0.0.0.0:9000" || c.AdminListen != "127.0.0.1:9001" {
		t.Errorf("top level = %q %q %q", c.Database, c.Listen, c.AdminListen)
	}
	s := c.Sources[0]
	if s.Tolerance.Std() != time.Minute || s.MaxBody != 512*KiB || s.IDField != "event_id" || s.TypeField != "event.type" {
		t.Errorf("source = %+v", s)
	}
	d := c.Destinations[0]
	if d.Timeout.Std() != 2*time.Second || d.MaxAttempts != 1 || !slices.Equal(d.Backoff, []Duration{Duration(time.Second)}) ||
		d.Concurrency != 1 || d.Rate != (Rate{20, time.Minute}) || !d.ForwardHeaders {
		t.Errorf("destination = %+v", d)
	}
	if c.Retention.Done.Std() != 36*time.Hour || c.Retention.Dead.Std() != 7*24*time.Hour {
		t.Errorf("retention = %+v", c.Retention)
	}
	wantIngest := Ingest{10, Duration(time.Second), Duration(2 * time.Second), Duration(3 * time.Second), Duration(4 * time.Second), 512, 32 * MiB, 5, 6, 0}
	if c.Ingest != wantIngest || c.Log != (Log{"debug", "text"}) || c.Alerts.URL != "https://alerts.example.com/hook" {
		t.Errorf("ingest, log, alerts = %+v %+v %+v", c.Ingest, c.Log, c.Alerts)
	}
	if driver, dsn := c.DatabaseDriver(); driver != "postgres" || dsn != c.Database {
		t.Errorf("DatabaseDriver() = %q, %q", driver, dsn)
	}
}

func TestParseEnvExpansion(t *testing.T) {
	t.Parallel()
	doc := `
listen: "${HOST:-127.0.0.1}:${PORT}"
sources:
  - name: stripe
    verify: stripe
    secrets: ["${CURRENT}", "${OLD}", "${NEXT:-}"]
    max_body: ${BODY:-2MiB}
destinations:
  - {name: d, url: "${TARGET}", secret: "${SIGNING}", sources: [stripe], max_attempts: "${ATTEMPTS:-3}"}
`
	c := parse(t, doc, map[string]string{
		"PORT":    "9090",
		"OLD":     "old-secret",
		"TARGET":  "http://127.0.0.1:3000/x",
		"SIGNING": testSigning,
	})
	if c.Listen != "127.0.0.1:9090" {
		t.Errorf("Listen = %q", c.Listen)
	}
	// The unset CURRENT and NEXT keep their slots 0 and 2, inactive.
	if got := c.Sources[0].Secrets; !slices.Equal(got, []string{"", "old-secret", ""}) {
		t.Errorf("Secrets = %q, want slot 1 only", got)
	}
	if c.Sources[0].MaxBody != 2*MiB || c.Destinations[0].MaxAttempts != 3 || c.Destinations[0].URL != "http://127.0.0.1:3000/x" {
		t.Errorf("expanded values = %v %v %q", c.Sources[0].MaxBody, c.Destinations[0].MaxAttempts, c.Destinations[0].URL)
	}
}

// A variable's value is data: it cannot add keys or change the document.
func TestParseEnvCannotInjectYAML(t *testing.T) {
	t.Parallel()
	evil := "x\"\nlisten: \"0.0.0.0:1\"\nadmin_listen: ${OTHER}\n# "
	c := parse(t, `
tokens: [{name: ops, role: admin, secret: "${TOKEN}"}]
`, map[string]string{"TOKEN": evil, "OTHER": "oops"})
	if c.Tokens[0].Secret != evil {
		t.Errorf("Secret = %q, want the variable's value unchanged", c.Tokens[0].Secret)
	}
	if c.Listen != DefaultListen || c.AdminListen != DefaultAdminListen {
		t.Errorf("listeners = %q, %q; want the defaults", c.Listen, c.AdminListen)
	}
}

func TestParseFileSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("token", "token-from-file\n")
	write("stripe", "stripe-from-file\r\n")
	abs := write("signing", testSigning+"\n\n")
	write("empty", "")
	if err := os.Mkdir(filepath.Join(dir, "creds"), 0o700); err != nil {
		t.Fatal(err)
	}
	write("creds/github", "github-from-file")

	doc := `
tokens: [{name: ops, role: admin, secret: "file:token"}]
sources:
  - {name: stripe, verify: stripe, secrets: ["file:./stripe", "inline-but-allowed"]}
  - {name: github, verify: github, secrets: ["${GH_SECRET}"]}
destinations:
  - {name: d, url: "http://h/", secret: "file:` + abs + `", sources: [stripe]}
`
	c, err := Parse([]byte(doc), dir, env(map[string]string{"GH_SECRET": "file:creds/github"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Tokens[0].Secret != "token-from-file" {
		t.Errorf("token secret = %q", c.Tokens[0].Secret)
	}
	if got := c.Sources[0].Secrets; !slices.Equal(got, []string{"stripe-from-file", "inline-but-allowed"}) {
		t.Errorf("stripe secrets = %q", got)
	}
	if got := c.Sources[1].Secrets; !slices.Equal(got, []string{"github-from-file"}) {
		t.Errorf("github secrets (file: from a variable) = %q", got)
	}
	if c.Destinations[0].Secret != testSigning {
		t.Errorf("destination secret = %q", c.Destinations[0].Secret)
	}

	write("huge", strings.Repeat("x", maxSecretFile+1))
	bad := `
sources: [{name: s, verify: stripe, secrets: ["file:missing", "file:", "file:creds", "file:huge"]}]
destinations: [{name: d, pull: true, secret: "file:empty", sources: [s]}]
`
	_, err = Parse([]byte(bad), dir, env(nil))
	got := problems(t, err)
	want := []string{
		"sources[0].secrets[0]: read secret file: open " + filepath.Join(dir, "missing") + ": no such file or directory",
		"sources[0].secrets[1]: file: names no file",
		"sources[0].secrets[2]: read secret file: " + filepath.Join(dir, "creds") + " is not a regular file",
		"sources[0].secrets[3]: read secret file: " + filepath.Join(dir, "huge") + " is larger than 65536 bytes",
		"destinations[0].secret: empty (file " + filepath.Join(dir, "empty") + " is empty)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, driver, dsn string
	}{
		{"sqlite:./hookrelay.db", "sqlite:/srv/relay/hookrelay.db", "sqlite", "/srv/relay/hookrelay.db"},
		{"sqlite:data/relay.db", "sqlite:/srv/relay/data/relay.db", "sqlite", "/srv/relay/data/relay.db"},
		{"sqlite:../relay.db", "sqlite:/srv/relay.db", "sqlite", "/srv/relay.db"},
		{"sqlite:/var/lib/relay.db", "sqlite:/var/lib/relay.db", "sqlite", "/var/lib/relay.db"},
		{"sqlite::memory:", "sqlite::memory:", "sqlite", ":memory:"},
		{"sqlite:./r.db?_pragma=busy_timeout(5000)", "sqlite:/srv/relay/r.db?_pragma=busy_timeout(5000)", "sqlite", "/srv/relay/r.db?_pragma=busy_timeout(5000)"},
		{"postgres://u@h:5432/db", "postgres://u@h:5432/db", "postgres", "postgres://u@h:5432/db"},
		{"postgresql://u@h/db?sslmode=disable", "postgresql://u@h/db?sslmode=disable", "postgres", "postgresql://u@h/db?sslmode=disable"},
	}
	for _, tt := range tests {
		c := parse(t, "database: "+quote(tt.in), nil)
		if c.Database != tt.want {
			t.Errorf("database %q = %q, want %q", tt.in, c.Database, tt.want)
		}
		if driver, dsn := c.DatabaseDriver(); driver != tt.driver || dsn != tt.dsn {
			t.Errorf("database %q: DatabaseDriver() = %q, %q; want %q, %q", tt.in, driver, dsn, tt.driver, tt.dsn)
		}
	}
}

// quote returns s as a double-quoted YAML scalar.
func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}
