package e2e

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestHostileZeroTimeBounds sends the zero time, and times before 1970, as
// since and until to every route that takes them: each is refused with 400
// rather than read as "no bound", which would list (or replay) everything.
// A real bound in the past still selects nothing.
func TestHostileZeroTimeBounds(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), secConfig, stripeEnv)
			for _, id := range []string{"evt_bound_1", "evt_bound_2"} {
				if status, _, answer, err := hostileDo(http.DefaultClient, hostileStripe(t, p, stripeEvent(id, ""), nil)); err != nil || status != 200 {
					t.Fatalf("post %s: %d %s %v", id, status, answer, err)
				}
			}
			for _, bad := range []string{"0001-01-01T00:00:00Z", "0001-01-01T00:00:00+01:00", "1969-12-31T23:59:59Z"} {
				for _, c := range []struct{ method, path, body string }{
					{"GET", "/api/v1/events?until=" + bad, ""},
					{"GET", "/api/v1/events?since=" + strings.ReplaceAll(bad, "+", "%2B"), ""},
					{"POST", "/api/v1/replay", `{"until":"` + bad + `","dry_run":true}`},
					{"POST", "/api/v1/replay", `{"since":"` + bad + `","dry_run":true}`},
					{"POST", "/api/v1/backfill", `{"destination":"alice","since":"` + bad + `","until":"2030-01-01T00:00:00Z","dry_run":true}`},
					{"POST", "/api/v1/backfill", `{"destination":"alice","since":"2020-01-01T00:00:00Z","until":"` + bad + `","dry_run":true}`},
				} {
					path := strings.ReplaceAll(c.path, "+", "%2B")
					status, answer := hostileAdmin(t, p, secAdmin, c.method, path, c.body)
					if status != http.StatusBadRequest {
						t.Errorf("%s %s %s: %d %s, want 400", c.method, path, c.body, status, answer)
					}
				}
			}
			status, answer := hostileAdmin(t, p, secAdmin, "GET", "/api/v1/events?until=2000-01-01T00:00:00Z", "")
			if status != 200 || !strings.Contains(string(answer), `"events":[]`) {
				t.Errorf("listing until 2000: %d %s, want 200 and no events", status, answer)
			}
		})
	}
}

// TestHostileRemovedDatabase removes the SQLite file from under a running
// relay: /readyz answers 503 within seconds and the log says why, webhooks
// are answered 503 rather than acknowledged into a file that is gone, and
// /healthz fails so that a supervisor restarts the relay.
func TestHostileRemovedDatabase(t *testing.T) {
	t.Parallel()
	db := testdb.SQLiteURL(t)
	p := startRelay(t, db, stripeSource, stripeEnv)
	if status, _, answer, err := hostileDo(http.DefaultClient, hostileStripe(t, p, stripeEvent("evt_removed_1", ""), nil)); err != nil || status != 200 {
		t.Fatalf("post: %d %s %v", status, answer, err)
	}
	if err := os.Remove(strings.TrimPrefix(db, "sqlite:")); err != nil {
		t.Fatal(err)
	}
	removed := time.Now()
	testkit.Eventually(t, 5*time.Second, "/readyz to answer 503 once the database file is removed", func() error {
		status, _ := hostileAdmin(t, p, "", "GET", "/readyz", "")
		return testkit.Check(status == http.StatusServiceUnavailable, "it answers %d", status)
	})
	noticed := time.Since(removed)
	status, _, answer, err := hostileDo(http.DefaultClient, hostileStripe(t, p, stripeEvent("evt_removed_2", ""), nil))
	if err != nil || status != http.StatusServiceUnavailable {
		t.Errorf("webhook after the file was removed: %d %s %v, want 503", status, answer, err)
	}
	if status, _ := hostileAdmin(t, p, "", "GET", "/healthz", ""); status != http.StatusServiceUnavailable {
		t.Errorf("/healthz after the file was removed: %d, want 503", status)
	}
	// Log lines reach the pipe within a tenth of a second.
	testkit.Eventually(t, 3*time.Second, "the removal in the relay's log", func() error {
		return testkit.Check(strings.Contains(p.logs.String(), "database file removed"), "log:\n%s", p.logs.String())
	})
	t.Logf("RELIABILITY removed-database driver=sqlite readyz_503_after=%s webhook=%d", noticed.Round(time.Millisecond), status)
}
