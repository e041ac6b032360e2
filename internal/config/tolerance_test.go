package config

import (
	"testing"
	"time"
)

// TestToleranceDefaults reads sources that leave tolerance out: each takes
// its provider's own default; a written tolerance wins, a written zero is
// still refused, and a YAML anchor's tolerance is kept.
func TestToleranceDefaults(t *testing.T) {
	t.Parallel()
	doc := `
tokens:
  - {name: ops, role: admin, secret: ops-token}
sources:
  - {name: linear, verify: linear, secrets: [s]}
  - {name: paddle, verify: paddle, secrets: [s]}
  - {name: stripe, verify: stripe, secrets: [s]}
  - {name: slack, verify: slack, secrets: [s]}
  - {name: github, verify: github, secrets: [s]}
  - {name: linear-wide, verify: linear, secrets: [s], tolerance: 10m}
  - &base {name: paddle-wide, verify: paddle, secrets: [s], tolerance: 30s}
  - {<<: *base, name: paddle-merged}
`
	c := parse(t, doc, nil)
	for name, want := range map[string]time.Duration{
		"linear": time.Minute, "paddle": 5 * time.Second, "stripe": 5 * time.Minute, "slack": 5 * time.Minute,
		"github": 5 * time.Minute, "linear-wide": 10 * time.Minute, "paddle-wide": 30 * time.Second, "paddle-merged": 30 * time.Second,
	} {
		s, ok := c.Source(name)
		if !ok {
			t.Fatalf("no source %s", name)
		}
		if got := s.Tolerance.Std(); got != want {
			t.Errorf("%s tolerance = %s; want %s", name, got, want)
		}
	}
	if d := DefaultSource("linear"); d.Tolerance.Std() != time.Minute || d.Verify != "linear" {
		t.Errorf("DefaultSource(linear) = %+v", d)
	}
	_, err := Parse([]byte(`
sources:
  - {name: linear, verify: linear, secrets: [s], tolerance: 0s}
`), testBase, env(nil))
	if p := problems(t, err); len(p) != 1 || p[0] != "sources[0].tolerance: 0s is not more than 0" {
		t.Errorf("tolerance 0s: %q", p)
	}
}
