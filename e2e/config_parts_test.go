package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// partsConfig is a config whose destinations' secrets come from variables
// the tests leave unset, and whose source secret from one they set.
const partsConfig = `sources:
  - {name: stripe, verify: stripe, secrets: ["${PARTS_STRIPE_SECRET}"]}
destinations:
  - {name: billing, url: "http://127.0.0.1:9/billing", secret: "${PARTS_BILLING_SECRET}", sources: [stripe]}
  - {name: crm, url: "http://127.0.0.1:9/crm", secret: "${PARTS_CRM_SECRET}", sources: [stripe]}
`

// TestVerbsNeedOnlyWhatTheyUse: migrate, send and doctor run with the
// destinations' variables unset, each naming them in a
// warning (doctor: a problem), while serve and check-config still refuse
// the config and list every unset variable.
func TestVerbsNeedOnlyWhatTheyUse(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			config := writeConfig(t, driver.URL(t), freeAddr(t), freeAddr(t), partsConfig)
			unset := []string{"PARTS_BILLING_SECRET", "PARTS_CRM_SECRET"}
			env := []string{"PARTS_STRIPE_SECRET=whsec_dGVzdC1zZWNyZXQ", "PARTS_BILLING_SECRET=", "PARTS_CRM_SECRET="}

			r := wantRun(t, env, 0, "migrate", "--config", config)
			contains(t, "migrate", r.stderr, append(unset, "not needed here, but serve refuses to start without it")...)
			contains(t, "migrate", r.stdout, "applied")

			r = wantRun(t, env, 1, "doctor", "--config", config)
			contains(t, "doctor", r.stdout, append(unset, "serve refuses to start until it is set", "migrations")...)

			r = wantRun(t, env, 1, "check-config", "--config", config)
			contains(t, "check-config", r.stderr, unset...)

			r = wantRun(t, env, 1, "serve", "--config", config)
			contains(t, "serve", r.stderr, unset...)

			// The secret of the source it signs for is all send needs.
			sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(`{"status":"stored"}`))
			}))
			defer sink.Close()
			body := filepath.Join(t.TempDir(), "event.json")
			if err := os.WriteFile(body, []byte(`{"id":"evt_parts","type":"invoice.paid","created":1}`), 0o600); err != nil {
				t.Fatal(err)
			}
			r = wantRun(t, env, 0, "send", "--config", config, "--url", sink.URL, "--source", "stripe", "--file", body)
			contains(t, "send", r.stderr, unset...)
			if !strings.Contains(r.stdout, "stored") {
				t.Errorf("send printed %q; want the relay's answer", r.stdout)
			}
		})
	}
}
