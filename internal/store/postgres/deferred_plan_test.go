package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// leaseReads records the statements that read delivery_leases, with
// their arguments.
type leaseReads struct {
	mu    sync.Mutex
	reads []leaseRead
}

type leaseRead struct {
	sql  string
	args []any
}

func (r *leaseReads) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if strings.Contains(data.SQL, "delivery_leases dl") && strings.HasPrefix(strings.TrimSpace(data.SQL), "SELECT") {
		r.mu.Lock()
		r.reads = append(r.reads, leaseRead{data.SQL, data.Args})
		r.mu.Unlock()
	}
	return ctx
}

func (r *leaseReads) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestDeferredReadsProbeTheKey checks how the reads that add the
// deliveries leased at ingest whose rows are deferred (stats, an event's
// deliveries, a delivery by id, the events list, a replay's count) find
// whether a row is written: one probe of the deliveries' key for each
// lease, never a scan of every delivery, even when delivery_leases's
// statistics say it holds many rows — as they do after a burst, the
// table emptying again within seconds. Each statement is read back from
// the pool and explained as the store sent it.
func TestDeferredReadsProbeTheKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u, err := url.Parse(testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	reads := &leaseReads{}
	cfg, err := pgxpool.ParseConfig(u.String())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Tracer = reads
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := storetest.Migrated(t, func(ctx context.Context) (*Store, error) {
		return OpenPool(ctx, pool, Options{Schema: u.Query().Get("search_path")}, slog.New(slog.DiscardHandler))
	})

	// A history of deliveries, and statistics that count many leases.
	start := time.Date(2026, time.March, 3, 9, 30, 0, 0, time.UTC)
	items := make([]store.IngestItem, 2000)
	for i := range items {
		items[i] = opsItem(fmt.Sprintf("evt_history_%d", i), start, []byte(`{}`))
	}
	if _, err := s.Ingest(ctx, items); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`INSERT INTO hookrelay.delivery_leases (id, lease_until, received_at, delivery_ids, event_ids, destinations, tokens, lease_untils)
		SELECT 1000000 + i, now(), now(), ARRAY[1000000 + i], ARRAY['evt'], ARRAY['billing'], ARRAY['tok'], ARRAY[now()]
		FROM generate_series(1, 20000) AS i`,
		`ANALYZE hookrelay.delivery_leases`,
		`ANALYZE hookrelay.deliveries`,
		`DELETE FROM hookrelay.delivery_leases`,
	} {
		if _, err := pool.Exec(ctx, s.sql.SQL(stmt)); err != nil {
			t.Fatal(err)
		}
	}
	leased := opsItem("evt_leased", start, []byte(`{}`))
	l := &store.Lease{Token: "tok", Until: time.Now().Add(time.Hour)}
	leased.Deliveries[0].Lease = l
	if _, err := s.Ingest(ctx, []store.IngestItem{leased}); err != nil {
		t.Fatal(err)
	}
	if !l.Deferred {
		t.Skip("the store did not defer the leased delivery's row")
	}

	if _, err := s.Stats(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EventDeliveries(ctx, leased.Event.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetDelivery(ctx, l.DeliveryID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.ListEvents(ctx, store.ListRequest{Limit: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Replay(ctx, store.ReplayRequest{Filter: store.EventFilter{Source: "stripe"}, DryRun: true, Actor: "ops"}); err != nil {
		t.Fatal(err)
	}

	reads.mu.Lock()
	defer reads.mu.Unlock()
	if len(reads.reads) < 5 {
		t.Fatalf("%d reads of delivery_leases recorded, want one each of 5 calls", len(reads.reads))
	}
	for _, r := range reads.reads {
		rows, err := pool.Query(ctx, "EXPLAIN "+r.sql, r.args...)
		if err != nil {
			t.Fatalf("explain %s: %v", r.sql, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		plan := strings.Join(lines, "\n")
		if !strings.Contains(plan, "deliveries_pkey on deliveries w") || strings.Contains(plan, "Seq Scan on deliveries w") ||
			strings.Contains(plan, "Anti Join") {
			t.Errorf("a read of the deferred deliveries does not probe the deliveries' key:\n%s\n%s", r.sql, plan)
		}
	}
}
