// Package postgrestest seeds PostgreSQL databases for the driver's
// benchmarks and the benchmark command's claim check: millions of rows
// written with SQL past the store's interface, where going through Ingest
// would take hours. Its SQL knows the driver's schema, so it lives next
// to the driver.
package postgrestest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store/postgres"
)

// Statement is one statement of a seed, and its arguments.
type Statement struct {
	SQL  string
	Args []any
}

// Seed runs statements in order on a connection of its own to url, with
// hookrelay.NAME naming the tables of a store opened on url.
func Seed(ctx context.Context, url string, statements []Statement) error {
	tables, err := postgres.TablesOf(url, "")
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	for _, st := range statements {
		if _, err := conn.Exec(ctx, tables.Rewrite(st.SQL), st.Args...); err != nil {
			return err
		}
	}
	return nil
}

// SeedHistory stores n events of the past, a millisecond apart from 60
// days ago (all in the past up to billions), each with one delivery to
// destination done then, in one statement per table, then has the
// tables vacuumed and analyzed, as autovacuum would. url is a migrated
// database.
func SeedHistory(ctx context.Context, url, destination string, n int64) error {
	err := Seed(ctx, url, []Statement{
		{`INSERT INTO hookrelay.events (id, source, provider_event_id, id_origin, type, body, content_type,
			signature_slot, occurred_at, received_at)
		SELECT 'evt_hist_' || lpad(g::text, 10, '0'), 'stripe', 'hist_' || g, 'header', 'invoice.paid',
			convert_to('{"id":"hist_' || g || '"}', 'UTF8'), 'application/json', 0,
			now() - interval '60 days' + g * interval '1 millisecond', now() - interval '60 days' + g * interval '1 millisecond'
		FROM generate_series(1, $1::bigint) AS g`, []any{n}},
		{`INSERT INTO hookrelay.deliveries (event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
			last_status_code, created_at, updated_at, finished_at)
		SELECT id, $1, 'done', 1, CASE WHEN random() < 0.5 THEN 'sub_' || (random() * 1000)::int ELSE '' END,
			received_at, received_at, 200, received_at, received_at, received_at
		FROM hookrelay.events WHERE id LIKE 'evt_hist_%'`, []any{destination}},
		{`VACUUM ANALYZE hookrelay.events`, nil},
		{`VACUUM ANALYZE hookrelay.deliveries`, nil},
	})
	if err != nil {
		return fmt.Errorf("seed history: %w", err)
	}
	return nil
}
