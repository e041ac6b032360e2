package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/loadgen"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/store"
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
// done deliveries of the claimed destination behind it, then with
// f.history. The done rows are written with one INSERT … SELECT
// generate_series per table, not through ingest.
func runClaimCheck(ctx context.Context, stderr io.Writer, f deliverFlags) ([]claimRow, error) {
	db, err := createPostgresDB(ctx, f.postgresURL)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := db.Drop(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintln(stderr, err)
		}
	}()
	st, err := relay.OpenStore(ctx, db.URL(), slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	q, ok := st.(store.Queue)
	if !ok {
		return nil, fmt.Errorf("claim check: %T has no delivery queue", st)
	}
	var rows []claimRow
	seeded := int64(0)
	live := 0
	for _, n := range []int64{f.historyBase, f.history} {
		fmt.Fprintf(stderr, "claim check: %d done deliveries\n", n)
		start := time.Now()
		if err := seedDone(ctx, db.URL(), seeded, n); err != nil {
			return nil, err
		}
		seeded = n
		row := claimRow{History: n, Seed: time.Since(start), Load: loadAverage()}
		if row.Claims, live, err = timeClaims(ctx, st, q, live, f.claims); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
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

// timeClaims claims claimBatch due deliveries of claimDest and completes
// each as done, claimWarmup times untimed and then n times timed, refilling
// the backlog off the clock when a claim comes back short. live counts the
// backlog events stored so far, for unique ids; it returns the new count.
func timeClaims(ctx context.Context, st store.Store, q store.Queue, live, n int) (loadgen.Summary, int, error) {
	refill := func() error {
		items := make([]store.IngestItem, claimBacklog)
		for i := range items {
			now := time.Now().UTC()
			items[i] = store.IngestItem{
				Event: store.Event{
					ID: ulid.Make().String(), Source: "stripe", ProviderEventID: fmt.Sprintf("evt_live_%d", live),
					IDOrigin: store.IDFromBody, Type: "invoice.paid", Body: []byte(`{"id":"live"}`),
					ContentType: "application/json", ReceivedAt: now,
				},
				Deliveries: []store.NewDelivery{{Destination: claimDest}},
			}
			live++
		}
		if _, err := st.Ingest(ctx, items); err != nil {
			return fmt.Errorf("refill backlog: %w", err)
		}
		return nil
	}
	if err := refill(); err != nil {
		return loadgen.Summary{}, live, err
	}
	var took []time.Duration
	for i := range claimWarmup + n {
		start := time.Now()
		cs, err := q.ClaimDeliveries(ctx, store.ClaimRequest{Destination: claimDest, Max: claimBatch, Lease: time.Minute, Now: start})
		if err != nil {
			return loadgen.Summary{}, live, fmt.Errorf("claim: %w", err)
		}
		if i >= claimWarmup {
			took = append(took, time.Since(start))
		}
		for _, c := range cs {
			now := time.Now()
			if err := q.CompleteDelivery(ctx, store.Completion{
				DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Status: store.StatusDone, Now: now,
				Attempt: store.Attempt{DeliveryID: c.Delivery.ID, AttemptedAt: now, Duration: time.Millisecond, StatusCode: 200},
			}); err != nil {
				return loadgen.Summary{}, live, fmt.Errorf("complete: %w", err)
			}
		}
		if len(cs) < claimBatch {
			if err := refill(); err != nil {
				return loadgen.Summary{}, live, err
			}
		}
	}
	return loadgen.Summarize(took), live, nil
}
