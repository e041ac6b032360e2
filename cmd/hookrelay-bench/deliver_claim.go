package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/loadgen"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// Shape of the claim measurement: what a busy delivery worker asks for,
// from a backlog refilled off the clock whenever it runs dry.
const (
	claimBatch   = 32
	claimBacklog = 64 * claimBatch
	claimWarmup  = 20 // claims made and not timed at each history size
	claimDest    = "billing"
)

// runClaimCheck measures the PostgreSQL claim's median with f.historyBase
// done deliveries of the claimed destination behind it and with
// f.history, on two databases whose done rows are written with one INSERT
// … SELECT generate_series per table, not through ingest. The two are
// claimed from in turn, so that whatever else loads the machine weighs on
// both alike.
func runClaimCheck(ctx context.Context, stderr io.Writer, f deliverFlags) ([]claimRow, error) {
	var (
		benches []*claimBench
		rows    []claimRow
	)
	defer func() {
		for _, b := range benches {
			b.close(context.WithoutCancel(ctx), stderr)
		}
	}()
	for _, n := range []int64{f.history, f.historyBase} {
		fmt.Fprintf(stderr, "claim check: seeding %d done deliveries\n", n)
		b, err := newClaimBench(ctx, f.postgresURL)
		if err != nil {
			return nil, err
		}
		benches = append(benches, b)
		start := time.Now()
		if err := seedDone(ctx, b.db.URL(), 0, n); err != nil {
			return nil, err
		}
		rows = append(rows, claimRow{History: n, Seed: time.Since(start)})
	}
	fmt.Fprintf(stderr, "claim check: %d claims on each, in turn\n", f.claims)
	load := loadAverage()
	for _, b := range benches {
		if err := b.refill(ctx); err != nil {
			return nil, err
		}
	}
	for i := range claimWarmup + f.claims {
		for j := range benches {
			// Alternate which goes first, so neither always follows the
			// other's completions.
			b := benches[(i+j)%len(benches)]
			if err := b.claimOnce(ctx, i >= claimWarmup); err != nil {
				return nil, err
			}
		}
	}
	// Report the smaller history first.
	slices.Reverse(rows)
	slices.Reverse(benches)
	for i, b := range benches {
		rows[i].Claims = loadgen.Summarize(b.took)
		rows[i].Load = load + " → " + loadAverage()
	}
	return rows, nil
}

// claimBench is one scratch database claimed from by the claim check.
type claimBench struct {
	db   *postgresDB
	st   store.DB
	live int             // backlog events stored so far, for unique ids
	took []time.Duration // timed claims
}

func newClaimBench(ctx context.Context, serverURL string) (*claimBench, error) {
	db, err := createPostgresDB(ctx, serverURL)
	if err != nil {
		return nil, err
	}
	b := &claimBench{db: db}
	if b.st, err = storeopen.Open(ctx, db.URL(), slog.New(slog.DiscardHandler)); err != nil {
		return b, err
	}
	if err := b.st.Migrate(ctx); err != nil {
		return b, fmt.Errorf("migrate: %w", err)
	}
	return b, nil
}

func (b *claimBench) close(ctx context.Context, stderr io.Writer) {
	if b.st != nil {
		_ = b.st.Close()
	}
	if err := b.db.Drop(ctx); err != nil {
		fmt.Fprintln(stderr, err)
	}
}

// seedDone adds done deliveries of claimDest, numbered from+1 to to, each
// with its event received in the past, then vacuums and analyzes both
// tables as autovacuum would.
func seedDone(ctx context.Context, url string, from, to int64) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	for _, stmt := range []string{
		`INSERT INTO events (id, source, provider_event_id, id_origin, type, body, content_type,
			signature_slot, occurred_at, received_at)
		SELECT 'evt_hist_' || lpad(g::text, 10, '0'), 'stripe', 'hist_' || g, 'body', 'invoice.paid',
			convert_to('{"id":"hist_' || g || '"}', 'UTF8'), 'application/json', 0,
			now() - interval '60 days' + g * interval '1 millisecond',
			now() - interval '60 days' + g * interval '1 millisecond'
		FROM generate_series($1::bigint + 1, $2::bigint) AS g`,
		`INSERT INTO deliveries (event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
			last_status_code, created_at, updated_at, finished_at)
		SELECT 'evt_hist_' || lpad(g::text, 10, '0'), '` + claimDest + `', 'done', 1,
			CASE WHEN g % 2 = 0 THEN 'sub_' || (g % 1000) ELSE '' END, t, t, 200, t, t, t
		FROM generate_series($1::bigint + 1, $2::bigint) AS g,
			LATERAL (SELECT now() - interval '60 days' + g * interval '1 millisecond' AS t) AS x`,
	} {
		if _, err := conn.Exec(ctx, stmt, from, to); err != nil {
			return fmt.Errorf("seed done deliveries: %w", err)
		}
	}
	for _, stmt := range []string{"VACUUM ANALYZE events", "VACUUM ANALYZE deliveries"} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("seed done deliveries: %w", err)
		}
	}
	return nil
}

// refill stores a backlog of claimBacklog pending deliveries of
// claimDest.
func (b *claimBench) refill(ctx context.Context) error {
	items := make([]store.IngestItem, claimBacklog)
	for i := range items {
		items[i] = store.IngestItem{
			Event: store.Event{
				ID: ulid.Make().String(), Source: "stripe", ProviderEventID: fmt.Sprintf("evt_live_%d", b.live),
				IDOrigin: store.IDFromBody, Type: "invoice.paid", Body: []byte(`{"id":"live"}`),
				ContentType: "application/json", ReceivedAt: time.Now().UTC(),
			},
			Deliveries: []store.NewDelivery{{Destination: claimDest}},
		}
		b.live++
	}
	if _, err := b.st.Ingest(ctx, items); err != nil {
		return fmt.Errorf("refill backlog: %w", err)
	}
	return nil
}

// claimOnce claims claimBatch due deliveries of claimDest, timing the
// claim when timed, and completes each as done; it refills the backlog,
// off the clock, when the claim comes back short.
func (b *claimBench) claimOnce(ctx context.Context, timed bool) error {
	start := time.Now()
	cs, err := b.st.ClaimDeliveries(ctx, store.ClaimRequest{Destination: claimDest, Max: claimBatch, Lease: time.Minute, Now: start})
	if err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if timed {
		b.took = append(b.took, time.Since(start))
	}
	for _, c := range cs {
		now := time.Now()
		if err := b.st.CompleteDelivery(ctx, store.Completion{
			DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Status: store.StatusDone, Now: now,
			Attempt: store.Attempt{DeliveryID: c.Delivery.ID, AttemptedAt: now, Duration: time.Millisecond, StatusCode: 200},
		}); err != nil {
			return fmt.Errorf("complete: %w", err)
		}
	}
	if len(cs) < claimBatch {
		return b.refill(ctx)
	}
	return nil
}
