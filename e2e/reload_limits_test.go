package e2e

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// reloadLimitsConfig has a body budget of 1 MiB, the least there is, and
// the Stripe source's default 1 MiB max_body: one body arriving holds it
// all.
const reloadLimitsConfig = `tokens:
  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
ingest:
  max_inflight_bytes: 1MiB
` + stripeSource

// TestReloadSharesIngestLimits is issue 26, item 5's first suspicion,
// confirmed: each reload built a receiver with its own body budget and
// concurrency slots while the retired one still held its own, so a reload
// storm multiplied the memory bound. One upload that declares 1 MiB and
// has sent past the unbudgeted first 16 KiB holds the whole 1 MiB budget;
// a second 1 MiB body is answered 503 for want of memory before a reload
// through the admin API, and must still be after it (before the fix the
// new receiver read it into a budget of its own and answered 401).
func TestReloadSharesIngestLimits(t *testing.T) {
	t.Parallel()
	env := append([]string{"E2E_ADMIN_TOKEN=" + e2eAdminToken}, stripeEnv...)
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), reloadLimitsConfig, env)

			holder, err := net.DialTimeout("tcp", p.public, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			head := fmt.Sprintf("POST /webhooks/stripe HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n"+
				"Stripe-Signature: t=1,v1=00\r\nContent-Length: %d\r\n\r\n", 1<<20)
			if _, err := holder.Write(append([]byte(head), bytes.Repeat([]byte("x"), 20<<10)...)); err != nil {
				t.Fatal(err)
			}

			client := &http.Client{Timeout: 30 * time.Second}
			second := func(step string) int {
				req, err := http.NewRequest(http.MethodPost, "http://"+p.public+"/webhooks/stripe", bytes.NewReader(bytes.Repeat([]byte("y"), 1<<20)))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Stripe-Signature", "t=1,v1=00")
				status, _, body, err := hostileDo(client, req)
				if err != nil {
					t.Fatalf("second 1 MiB body %s: %v", step, err)
				}
				t.Logf("second 1 MiB body %s: %d %s", step, status, strings.TrimSpace(string(body)))
				return status
			}
			// Until the holder's first 16 KiB are read, a second body is
			// read too (and refused for its signature); from then on the
			// holder has the whole budget and a second body is refused 503.
			testkit.Eventually(t, 10*time.Second, "the holder to take the whole budget", func() error {
				got := second("before the reload")
				return testkit.Check(got == http.StatusServiceUnavailable, "a second 1 MiB body answered %d, want 503", got)
			})
			if code, answer := hostileAdmin(t, p, e2eAdminToken, "POST", "/api/v1/reload", ""); code != 200 {
				t.Fatalf("reload: %d %s", code, answer)
			}
			if got := second("after the reload"); got != http.StatusServiceUnavailable {
				t.Errorf("second 1 MiB body after the reload: %d, want 503: the new receiver must draw on the budget the retired one's request holds", got)
			}
			t.Logf("RELIABILITY reload-limits driver=%s budget=1MiB held_by_retired_receiver=1MiB", driver.Name)
		})
	}
}
