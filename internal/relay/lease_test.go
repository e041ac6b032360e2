package relay_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// leases reads hookrelay_delivery_leases_total{destination, how} from
// the relay's /metrics; ok is false when the series is absent.
func leases(t *testing.T, r *relay.Relay, destination, how string) (n int, ok bool) {
	t.Helper()
	prefix := fmt.Sprintf(`hookrelay_delivery_leases_total{destination=%q,how=%q} `, destination, how)
	for _, l := range strings.Split(scrape(t, r), "\n") {
		if v, found := strings.CutPrefix(l, prefix); found {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return n, true
		}
	}
	return 0, false
}

// openStore opens the relay's database beside it, closed when the test
// ends.
func openStore(t *testing.T, database string) store.DB {
	t.Helper()
	st, err := storeopen.Open(context.Background(), database, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// uniqueName returns prefix followed by random hex: a destination name
// no other test uses.
func uniqueName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// waitDone waits until the destination has n deliveries done.
func waitDone(t *testing.T, st store.DB, destination string, n int64) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, fmt.Sprintf("%d deliveries done", n), func() error {
		s, err := st.Stats(context.Background(), time.Now())
		if err != nil {
			return err
		}
		got := s.Destinations[destination].Counts[store.StatusDone]
		return testkit.Check(got == n, "%d done", got)
	})
}

// TestEventLeasedAtIngest checks that an event posted to an idle relay is
// delivered without a claim: its delivery is leased by the commit that
// stores it and handed to the senders in memory.
func TestEventLeasedAtIngest(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			var pushed atomic.Int64
			dest := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { pushed.Add(1) }))
			defer dest.Close()
			db := driver.URL(t)
			// Tests' schemas share one database, and so its notifications:
			// another test's pending delivery to a destination of the same
			// name would wake this relay's, which then claims a while.
			app := uniqueName("app")
			r := startRelay(t, db, `destinations:
  - {name: `+app+`, url: "`+dest.URL+`", secret: "`+secret+`", sources: [stripe]}
`)
			st := openStore(t, db)
			// Once one event is done the engine has claimed and found its
			// queue empty: from then on it leases at ingest.
			if code := post(t, r, `{"id":"evt_l0","type":"invoice.paid","created":1700000000}`); code != 200 {
				t.Fatalf("post: %d", code)
			}
			waitDone(t, st, app, 1)
			claimed, _ := leases(t, r, app, "claim")
			atIngest, _ := leases(t, r, app, "ingest")

			const n = 3
			for i := 1; i <= n; i++ {
				if code := post(t, r, fmt.Sprintf(`{"id":"evt_l%d","type":"invoice.paid","created":1700000000}`, i)); code != 200 {
					t.Fatalf("post: %d", code)
				}
				waitDone(t, st, app, int64(1+i))
			}
			if got, _ := leases(t, r, app, "ingest"); got != atIngest+n {
				t.Errorf("%d deliveries leased at ingest, want %d", got-atIngest, n)
			}
			if got, _ := leases(t, r, app, "claim"); got != claimed {
				t.Errorf("%d deliveries claimed, want none", got-claimed)
			}
			if got := pushed.Load(); got != 1+n {
				t.Errorf("%d pushes, want %d", got, 1+n)
			}
		})
	}
}

// TestReceiverOnlyLeasesNothing checks that a relay that only receives
// creates every delivery pending, for the workers to claim.
func TestReceiverOnlyLeasesNothing(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			r := startRelayAs(t, relay.RoleReceiver, db, `destinations:
  - {name: app, url: "http://127.0.0.1:1/", secret: "`+secret+`", sources: [stripe]}
`, io.Discard)
			if code := post(t, r, `{"id":"evt_r1","type":"invoice.paid","created":1700000000}`); code != 200 {
				t.Fatalf("post: %d", code)
			}
			st := openStore(t, db)
			e, err := st.EventByProviderID(context.Background(), "stripe", "evt_r1")
			if err != nil {
				t.Fatal(err)
			}
			ds, err := st.EventDeliveries(context.Background(), e.ID)
			if err != nil || len(ds) != 1 || ds[0].Status != store.StatusPending || ds[0].Attempts != 0 {
				t.Errorf("deliveries = %+v, %v; want one pending, no attempt", ds, err)
			}
			if _, ok := leases(t, r, "app", "ingest"); ok {
				t.Error("a receiver-only relay exports lease counts")
			}
		})
	}
}
