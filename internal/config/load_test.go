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
		c.Ingest.RejectionsKeep != 10000 || c.Ingest.RejectionsPerSecond != 50 ||
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
ingest: {max_concurrency: 10, read_header_timeout: 1s, read_timeout: 2s, write_timeout: 3s, idle_timeout: 4s, rejections_keep: 5, rejections_per_second: 6}
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
	wantIngest := Ingest{10, Duration(time.Second), Duration(2 * time.Second), Duration(3 * time.Second), Duration(4 * time.Second), 5, 6}
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

// Keys are never expanded; an expanded value is not a key.
func TestParseEnvNotInKeys(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("${KEY}: x\n"), testBase, env(map[string]string{"KEY": "listen"}))
	want := []string{"${KEY}: unknown key"}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems = %q, want %q", got, want)
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

func TestParseUnknownKeys(t *testing.T) {
	t.Parallel()
	doc := `
databse: sqlite:x.db
sources:
  - {name: s, verify: github, secrets: [x], secret: y}
  - {name: t, verfy: github, secrets: [x]}
destinations:
  - {name: d, pull: true, secret: ` + testSigning + `, sources: [s], retries: 3}
retention: {done: 1d, failed: 2d}
ingest: {max_conncurrency: 3}
tokens: [{name: a, role: admin, secret: x, scopes: [all]}]
hmac: {}
`
	_, err := Parse([]byte(doc), testBase, env(nil))
	want := []string{
		`databse: unknown key (did you mean "database"?)`,
		`sources[0].secret: unknown key (did you mean "secrets"?)`,
		`sources[1].verfy: unknown key (did you mean "verify"?)`,
		`destinations[0].retries: unknown key`,
		`retention.failed: unknown key`,
		`ingest.max_conncurrency: unknown key (did you mean "max_concurrency"?)`,
		`tokens[0].scopes: unknown key`,
		`hmac: unknown key`,
		// Reported by validation, as the misspelt key left verify unset.
		`sources[1].verify: required (want one of stripe, github, shopify, standard, slack, gitlab, hmac, none)`,
	}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseBadValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"list wanted", "sources: {name: x}", []string{`sources: want a list, got a mapping`}},
		{"mapping wanted", "retention: [1d]", []string{`retention: want a mapping, got a list`}},
		{"scalar wanted", `listen: [":80"]`, []string{`listen: want a single value, got a list`}},
		{"whole document", "just text", []string{`(top level): want a mapping, got "just text"`}},
		{"integer", "ingest: {max_concurrency: many}", []string{`ingest.max_concurrency: want a whole number, got "many"`}},
		{"bool", "sources: [{name: g, verify: github, allow_sha1: yes}]", []string{`sources[0].allow_sha1: want true or false, got "yes"`}},
		{"duration without unit", "retention: {done: 30}", []string{`retention.done: invalid duration "30" (want e.g. 90s, 5m, 2h, 30d)`}},
		{"size", "sources: [{name: g, verify: github, max_body: huge}]", []string{`sources[0].max_body: invalid size "huge" (want e.g. 2048, 512KiB, 1MiB, 10MB)`}},
		{"rate", "destinations: [{name: d, pull: true, secret: " + testSigning + ", sources: [g], rate: fast}]\nsources: [{name: g, verify: github}]",
			[]string{`destinations[0].rate: invalid rate "fast" (want N/s, N/m or N/h with N > 0, e.g. 100/s)`}},
		{"backoff step", "destinations: [{name: d, pull: true, secret: " + testSigning + ", sources: [g], backoff: [1m, soon]}]\nsources: [{name: g, verify: github}]",
			[]string{`destinations[0].backoff[1]: invalid duration "soon" (want e.g. 90s, 5m, 2h, 30d)`}},
		{"key twice", "listen: \":1\"\nlisten: \":2\"", []string{`listen: key written twice`}},
		{"unterminated variable", `listen: "${PORT"`, []string{`listen: unterminated ${ in "${PORT"`}},
		{"bad variable name", `listen: "${1PORT}"`, []string{`listen: invalid variable name "1PORT" in ${1PORT}`}},
		{"complex key", "? [a]\n: b", []string{`(top level): a key must be a single value, got a list`}},
		// A name that cannot be read is not also reported as missing.
		{"covered", "sources: [{name: [x], verify: github}]", []string{`sources[0].name: want a single value, got a list`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.doc), testBase, env(nil))
			if got := problems(t, err); !slices.Equal(got, tt.want) {
				t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestParseYAMLSyntaxError(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("sources: [unclosed\n"), testBase, env(nil))
	var ve *ValidationError
	if err == nil || errors.As(err, &ve) || !strings.HasPrefix(err.Error(), "parse yaml: ") {
		t.Errorf("err = %v, want a YAML syntax error", err)
	}
}

func TestParseAnchorsAndMerge(t *testing.T) {
	t.Parallel()
	c := parse(t, `
x-push: &push
  timeout: 3s
  max_attempts: 3
  backoff: &steps [1s, 2s]
  sources: [s]
sources: [{name: s, verify: github, secrets: [x]}]
destinations:
  - <<: *push
    name: a
    url: http://a/
    secret: `+testSigning+`
  - name: b
    <<: [*push, {timeout: 9s, concurrency: 2}]
    max_attempts: 5
    url: http://b/
    secret: `+testSigning+`
    backoff: *steps
`, nil)
	a, b := c.Destinations[0], c.Destinations[1]
	if a.Timeout.Std() != 3*time.Second || a.MaxAttempts != 3 || a.Concurrency != 4 || !slices.Equal(a.Sources, []string{"s"}) ||
		!slices.Equal(a.Backoff, []Duration{Duration(time.Second), Duration(2 * time.Second)}) {
		t.Errorf("a = %+v", a)
	}
	// The first merged mapping wins over later ones; the mapping's own keys
	// win over every merged one.
	if b.Timeout.Std() != 3*time.Second || b.MaxAttempts != 5 || b.Concurrency != 2 || len(b.Backoff) != 2 {
		t.Errorf("b = %+v", b)
	}
}

func TestParseAliasExpansionIsBounded(t *testing.T) {
	t.Parallel()
	// Each source is the same aliased mapping holding the same aliased list
	// of secrets: 1000 × 1000 values from a file of a few kilobytes.
	many := func(item string, n int) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]"
	}
	doc := "x-v: &v secret\n" +
		"x-secrets: &secrets " + many("*v", 1000) + "\n" +
		"x-source: &source {name: s, verify: github, secrets: *secrets}\n" +
		"sources: " + many("*source", 1000) + "\n"
	start := time.Now()
	_, err := Parse([]byte(doc), testBase, env(nil))
	want := []string{"(top level): too many values (aliases expand too far)"}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems = %q, want %q", got, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Parse took %v", d)
	}
}
