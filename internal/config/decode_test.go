package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// Keys are never expanded; an expanded value is not a key.
func TestParseEnvNotInKeys(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("${KEY}: x\n"), testBase, env(map[string]string{"KEY": "listen"}))
	want := []string{`"${KEY}": unknown key`}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems = %q, want %q", got, want)
	}
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
		`sources[1].verify: required (want one of stripe, github, shopify, standard, slack, gitlab, hmac, none, twilio, paddle, zoom, meta, discord, sendgrid, mailgun, square, linear, intercom, msgraph)`,
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
		{"odd keys", "\"\": 1\n\"max body\": 2\n? ~\n: 3", []string{`"": unknown key`, `"max body": unknown key`, `"~": unknown key`}},
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
	_, err := Parse([]byte(doc), testBase, env(nil))
	want := []string{"(top level): too many values (aliases expand too far)"}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems = %q, want %q", got, want)
	}
}
