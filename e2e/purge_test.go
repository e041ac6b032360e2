package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestPurgeByTheCLI erases one customer's events with the real binary: a
// dry-run count, a confirmation, the tombstone shown, the payload gone,
// replay refused, the audit log, and a push destination that never
// receives what was purged while it waited. It runs with payloads stored
// plain and sealed: the search by value reads the bodies as the store
// opens them.
func TestPurgeByTheCLI(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		for _, sealed := range []bool{false, true} {
			name := driver.Name
			if sealed {
				name += "/sealed"
			}
			t.Run(name, func(t *testing.T) { testPurgeByTheCLI(t, driver, sealed) })
		}
	}
}

func testPurgeByTheCLI(t *testing.T, driver testdb.Driver, sealed bool) {
	t.Parallel()
	var (
		mu       sync.Mutex
		received []string
	)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		received = append(received, string(b))
		mu.Unlock()
	}))
	defer sink.Close()
	cfg, env := operatorConfig(sink.URL), adminEnv
	if sealed {
		cfg += "encryption:\n  keys:\n    - {id: k1, key: \"${E2E_PAYLOAD_KEY}\"}\n"
		env = append(append([]string(nil), adminEnv...), "E2E_PAYLOAD_KEY="+sealedKey)
	}
	p := startRelay(t, driver.URL(t), cfg, env)
	admin, read := cliEnv(p, e2eAdminToken), cliEnv(p, e2eReadToken)

	// The sink is paused: the deliveries wait, pending.
	wantRun(t, admin, 0, "destinations", "pause", "sink")
	for i, customer := range []string{"cus_123", "cus_123", "cus_1234", "cus_9"} {
		postSigned(t, p, fmt.Appendf(nil, `{"id":"evt_p%d","type":"invoice.paid","created":1,"data":{"object":{"customer":%q,"email":"subject@example.com"}}}`, i, customer))
	}
	ids := strings.Fields(wantRun(t, read, 0, "events", "list", "--ids").stdout)
	if len(ids) != 4 {
		t.Fatalf("listed %d events, want 4", len(ids))
	}
	// Newest first: evt_p3 is ids[0]; evt_p0 is ids[3].
	byID := ids[0]

	sel := []string{"purge", "--path", "data.object.customer", "--value", "cus_123", "--source", "stripe", "--since", "-1h", "--reason", "erasure request 9"}
	r := wantRun(t, admin, 0, append(sel, "--dry-run")...)
	contains(t, "purge --dry-run", r.stdout, "2 events match (of 4 events searched) and would be purged")
	r = wantRun(t, admin, 2, sel...)
	contains(t, "purge without a terminal", r.stderr, "add --yes")
	r = wantRun(t, read, 1, append(sel, "--yes")...)
	contains(t, "purge with a read token", r.stderr+r.stdout, "admin token")
	r = wantRun(t, admin, 2, "purge", "--path", "data.object.customer", "--value", "cus_123", "--yes")
	contains(t, "purge without a reason", r.stderr, "--reason is required")
	r = wantRun(t, admin, 0, append(sel, "--yes")...)
	contains(t, "purge", r.stdout, "purged 2 events (2 matched); 4 deliveries ended as purged")
	r = wantRun(t, admin, 0, "purge", "--id", byID, "--reason", "erasure request 10", "--yes")
	contains(t, "purge by id", r.stdout, "purged 1 event (1 matched)")
	r = wantRun(t, admin, 0, "purge", "--id", byID, "--reason", "again", "--dry-run")
	contains(t, "purge of a purged event", r.stdout, "0 events match and would be purged; 1 already purged before")

	show := wantRun(t, read, 0, "events", "show", byID).stdout
	contains(t, "events show of a purged event", show, "purged", "by ops: erasure request 10", "sink  purged")
	if strings.Contains(show, "subject@example.com") {
		t.Errorf("events show prints a purged payload:\n%s", show)
	}
	r = wantRun(t, read, 1, "events", "raw", byID)
	contains(t, "events raw of a purged event", r.stderr, "was purged", "its body and headers are gone")
	r = wantRun(t, admin, 1, "replay", "--id", byID, "--yes")
	contains(t, "replay of a purged event", r.stderr, "was purged", "cannot be replayed")
	contains(t, "stats", wantRun(t, read, 0, "stats").stdout, "PURGED")
	r = wantRun(t, read, 0, "audit", "--since", "-1h")
	contains(t, "audit", r.stdout, "purge", "2 matched, 2 purged", "1 matched, 1 purged", "value_hmac", "erasure request 9")
	if strings.Contains(r.stdout, `"cus_123"`) {
		t.Errorf("the audit log keeps the value looked for:\n%s", r.stdout)
	}

	// Resumed, the sink receives the one event left, never the
	// others.
	wantRun(t, admin, 0, "destinations", "resume", "sink")
	waitSettled(t, p, e2eAdminToken, "sink")
	if out := wantRun(t, read, 0, "events", "list").stdout; !strings.Contains(out, "sink:done") {
		t.Errorf("the kept event's delivery is not done:\n%s", out)
	}
	mu.Lock()
	got := append([]string(nil), received...)
	mu.Unlock()
	if len(got) != 1 || !strings.Contains(got[0], `"cus_1234"`) {
		t.Errorf("the sink received %q; want the kept event only", got)
	}
	list := wantRun(t, read, 0, "events", "list").stdout
	if n := len(regexp.MustCompile(`sink:purged`).FindAllString(list, -1)); n != 3 {
		t.Errorf("events list shows %d purged sink deliveries, want 3:\n%s", n, list)
	}
	if logs := p.logs.String(); strings.Contains(logs, "cus_123") || strings.Contains(logs, "subject@example.com") || strings.Contains(logs, "erasure request") {
		t.Errorf("the relay's log carries a purged value, payload or reason:\n%s", logs)
	}
}
