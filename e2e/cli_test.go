package e2e

import (
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	r := run(t, nil, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "hookrelay ") {
		t.Fatalf("version: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"frobnicate"}, {"serve", "--role", "janitor"}, {"check-config", "stray"}} {
		if r := run(t, nil, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, r.code, r.stderr)
		}
	}
}

func TestCheckConfigMasksSecrets(t *testing.T) {
	t.Parallel()
	const secret = "whsec_c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1wcmludGVk"
	env := []string{"STRIPE_WEBHOOK_SECRET=" + secret, "HOOKRELAY_ADMIN_TOKEN=admin-token-never-printed"}
	r := run(t, env, "check-config", "--config", "../examples/hookrelay.yaml")
	if r.code != 0 {
		t.Fatalf("check-config: exit %d: %s", r.code, r.stderr)
	}
	contains(t, "check-config output", r.stdout, "name: stripe", "verify: stripe", "****")
	for _, s := range []string{secret, "admin-token-never-printed"} {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("check-config printed a secret %q", s)
		}
	}
}

func TestBadConfigNamesEveryKey(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, "sqlite:./x.db", "127.0.0.1:0", "127.0.0.1:0", `sources:
  - name: stripe
    verify: strpe
    secrets: ["x"]
  - name: gh
    verify: github
    secrets: ["y"]
    tolerance: soon
`)
	for _, cmd := range []string{"check-config", "serve", "migrate"} {
		r := run(t, nil, cmd, "--config", path)
		if r.code != 1 {
			t.Errorf("%s: exit %d, want 1", cmd, r.code)
		}
		contains(t, cmd+" stderr", r.stderr,
			`sources[0].verify: unknown scheme "strpe" (did you mean "stripe"?) (want one of stripe, github,`,
			`sources[1].tolerance:`)
	}
}

func TestMigrate(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			path := writeConfig(t, driver.URL(t), "127.0.0.1:0", "127.0.0.1:0", "")
			for range 2 {
				if r := run(t, nil, "migrate", "--config", path); r.code != 0 {
					t.Fatalf("migrate: exit %d: %s", r.code, r.stderr)
				}
			}
		})
	}
}
