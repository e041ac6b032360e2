package hookrelay_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestRollingDeployHandlesEveryEventOnce runs two replicas of an
// application on one database, as a rolling deploy does: the old one has
// the code of a handler destination "audit" alone, the new one that of
// "orders" alone. Webhooks arrive at both. The old replica does not read
// the new one's registration of orders while the test runs (its reads are
// slowed down to an hour), so every event it receives is routed without
// orders, and the new replica's backfill of its registration must give
// them their orders delivery. Every event is then handled exactly once by
// each destination, each by the one replica that has its code.
func TestRollingDeployHandlesEveryEventOnce(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		db := drv.URL(t)
		record := func(replica string) hookrelay.HandlerFunc {
			return func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				return insertEffect(ctx, tx, ev, ev.Destination+" by "+replica)
			}
		}
		audit := hookrelay.Destination{Name: "audit", Sources: []string{"stripe"}, Backoff: []time.Duration{10 * time.Millisecond}}
		old := setupOn(t, db, func(r *hookrelay.Relay) {
			hookrelay.SetRouteRefresh(r, time.Hour)
			r.Handle(audit, record("old"))
		})
		upgraded := setupOn(t, db, func(r *hookrelay.Relay) {
			r.Handle(orders(3), record("new"))
		})

		var ids []string
		for i := range 10 {
			for _, replica := range []*bundle{old, upgraded} {
				id := fmt.Sprintf("evt_roll_%02d", len(ids))
				ids = append(ids, id)
				replica.mustPost(t, stripeEvent(id, "checkout.session.completed", fmt.Sprint("ord_", i), time.Now()))
			}
		}
		var want []string
		for _, id := range ids {
			upgraded.waitStatus(t, id, "orders", "done")
			upgraded.waitStatus(t, id, "audit", "done")
			want = append(want, id+" audit by old", id+" orders by new")
		}
		got := upgraded.app.strings(t, `SELECT event_id || ' ' || note FROM effects ORDER BY event_id, note`)
		if !slices.Equal(got, want) {
			t.Errorf("effects = %v, want each event once per destination, by the replica with its code: %v", got, want)
		}
	})
}
