package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// TestReloadOfUnsetVariableSaysRestart: a reload refused because the
// edited config names a variable the running process does not have says
// that a restart (or a file: secret) is the fix, through the API and the
// CLI, since setting the variable in a shell reaches no running process;
// a secret moved to a file then reloads.
func TestReloadOfUnsetVariableSaysRestart(t *testing.T) {
	t.Parallel()
	database := "sqlite:" + filepath.Join(t.TempDir(), "hr.db")
	p := startRelay(t, database, adminConfig, adminEnv)
	edit := func(destination string) {
		t.Helper()
		body := relayproc.ConfigYAML(database, p.public, p.admin, adminConfig+destination)
		if err := os.WriteFile(p.configPath, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	edit(`  - {name: crm, url: "http://127.0.0.1:9/crm", secret: "${RELOAD_CRM_SECRET}", sources: [stripe]}
`)
	code, answer := hostileAdmin(t, p, e2eAdminToken, "POST", "/api/v1/reload", "")
	if code != 400 || !strings.Contains(string(answer), "RELOAD_CRM_SECRET") || !strings.Contains(string(answer), "a running process cannot change") {
		t.Errorf("reload naming an unset variable: %d %s; want 400 saying a restart or a file: secret is needed", code, answer)
	}
	r := wantRun(t, cliEnv(p, e2eAdminToken), 1, "reload")
	contains(t, "hookrelay reload naming an unset variable", r.stderr, "RELOAD_CRM_SECRET", "restart it with the variable set", "file:PATH")

	secret := filepath.Join(t.TempDir(), "crm-secret")
	if err := os.WriteFile(secret, []byte("whsec_ZTJlLWNybS1zaWduaW5n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	edit(`  - {name: crm, url: "http://127.0.0.1:9/crm", secret: "file:` + secret + `", sources: [stripe]}
`)
	wantRun(t, cliEnv(p, e2eAdminToken), 0, "reload")
}
