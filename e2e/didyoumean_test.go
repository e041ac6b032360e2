package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTyposAreNamed: a mistyped command, verb, flag or scheme name is
// answered with the likely one, as a mistyped config key is; doctor says
// each thing once and counts in words that agree.
func TestTyposAreNamed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serv"}, `unknown command "serv" (did you mean "serve"?)`},
		{[]string{"events", "lst"}, `unknown verb "lst" (did you mean "list"?)`},
		{[]string{"send", "--sorce", "stripe"}, `-sorce (did you mean "--source"?)`},
	} {
		r := wantRun(t, nil, 2, c.args...)
		contains(t, strings.Join(c.args, " "), r.stderr, c.want)
	}

	config := writeConfig(t, "sqlite:"+filepath.Join(t.TempDir(), "hr.db"), freeAddr(t), freeAddr(t), `sources:
  - {name: stripe, verify: strpe, secrets: ["x"]}
`)
	r := wantRun(t, nil, 1, "check-config", "--config", config)
	contains(t, "check-config", r.stderr, `unknown scheme "strpe" (did you mean "stripe"?)`)

	config = writeConfig(t, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", freeAddr(t), freeAddr(t), stripeSource)
	r = wantRun(t, stripeEnv, 1, "doctor", "--config", config)
	contains(t, "doctor", r.stdout, "1 source, 0 destinations, 0 tokens", "1 problem found")
	if strings.Count(r.stdout, "open postgres") > 1 || strings.Contains(r.stderr, "problems found") {
		t.Errorf("doctor repeats itself:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
}
