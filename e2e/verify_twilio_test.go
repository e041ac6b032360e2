package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestVerifyTwilioByTheCLI sends a Twilio event with `hookrelay send` (a
// JSON body, signed through the bodySHA256 query parameter of the URL
// called) and checks it again with `hookrelay verify`: the stored event
// matches its secret, on both drivers.
func TestVerifyTwilioByTheCLI(t *testing.T) {
	t.Parallel()
	config := `tokens:
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
sources:
  - {name: twilio, verify: twilio, secrets: ["${E2E_SECRET}"], public_url: "https://relay.example.com/webhooks/twilio"}
`
	env := []string{"E2E_SECRET=twilio-auth-token", "E2E_READ_TOKEN=" + e2eReadToken}
	body := filepath.Join(t.TempDir(), "twilio.json")
	if err := os.WriteFile(body, []byte(`{"sid":"SM1","status":"delivered"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), config, env)
			if r := run(t, env, "send", "--config", p.configPath, "--source", "twilio", "--file", body); r.code != 0 ||
				r.stdout != "200 {\"status\":\"stored\"}\n" {
				t.Fatalf("send: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			read := cliEnv(p, e2eReadToken)
			var list struct {
				Events []struct {
					ID string `json:"id"`
				} `json:"events"`
			}
			r := wantRun(t, read, 0, "events", "list", "--json")
			if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Events) != 1 {
				t.Fatalf("events list --json: %v\n%s", err, r.stdout)
			}
			r = wantRun(t, read, 0, "verify", list.Events[0].ID)
			contains(t, "verify", r.stdout, "valid: the signature matches secret slot 0 (scheme twilio)")
		})
	}
}
