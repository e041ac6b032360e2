// Package postgrestest seeds PostgreSQL databases for the driver's
// benchmarks and the benchmark command's claim check: millions of rows
// written with SQL past the store's interface, where going through Ingest
// would take hours. Its SQL knows the driver's schema, so it lives next
// to the driver.
package postgrestest

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store/postgres"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
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

// SeedDay stores n events received in the 24 hours from day, evenly
// spread, each with a body of bodyBytes and a done delivery to each of
// destinations (its one attempt kept on the delivery's row, as an outcome
// keeps it), and for one delivery in twenty a failed attempt before it,
// as a row of attempts; then it has the tables vacuumed and analyzed, as
// autovacuum would. On a partitioned event log it writes the events'
// dedupe keys too. url is a migrated database, which may hold other days;
// the ids are ULID-shaped (see bulkseed.IDSQL), so the rows lie in the
// partitions of their day.
func SeedDay(ctx context.Context, url string, day time.Time, n int64, destinations []string, bodyBytes int) error {
	step := (24 * time.Hour / time.Duration(n)).Microseconds()
	at := fmt.Sprintf("(%d + g * %d)", day.UnixMicro(), max(step, 1))
	from, _ := sqlstore.IDFrom(day)
	to, _ := sqlstore.IDFrom(day.Add(24 * time.Hour))
	err := Seed(ctx, url, []Statement{
		{`INSERT INTO hookrelay.events (id, source, provider_event_id, id_origin, type, body, content_type,
			headers, signature_slot, occurred_at, received_at)
		SELECT id, 'stripe', 'evt_' || id, 'header', 'invoice.paid',
			convert_to(rpad('{"id":"evt_' || id || '","type":"invoice.paid"}', $2), 'UTF8'), 'application/json',
			'{"Content-Type":["application/json"]}', 0, at, at
		FROM (SELECT ` + bulkseed.IDSQL(at+" / 1000", "g") + ` AS id, timestamptz 'epoch' + ` + at + ` * interval '1 microsecond' AS at
			FROM generate_series(0, $1::bigint - 1) AS g) AS x`, []any{n, bodyBytes}},
		{`DO $$ BEGIN
			IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('hookrelay.event_keys')) = 'r' THEN
				INSERT INTO hookrelay.event_keys (source, provider_event_id, event_id)
				SELECT source, provider_event_id, id FROM hookrelay.events WHERE id >= '` + from + `' AND id < '` + to + `';
			END IF;
		END $$`, nil},
		{`INSERT INTO hookrelay.deliveries (event_id, destination, status, attempts, next_attempt_at, order_at,
			last_status_code, created_at, updated_at, finished_at, last_attempted_at, last_duration_ms)
		SELECT e.id, d, 'done', 1, e.received_at, e.received_at, 200, e.received_at, e.received_at, e.received_at,
			e.received_at, 25
		FROM hookrelay.events e CROSS JOIN unnest($1::text[]) AS d
		WHERE e.id >= $2 AND e.id < $3`, []any{destinations, from, to}},
		{`INSERT INTO hookrelay.attempts (delivery_id, event_id, attempted_at, duration_ms, status_code, error)
		SELECT id, event_id, created_at, 25, 503, 'Service Unavailable' FROM hookrelay.deliveries
		WHERE id % 20 = 0 AND event_id >= $1 AND event_id < $2`, []any{from, to}},
		{`VACUUM ANALYZE hookrelay.events`, nil},
		{`VACUUM ANALYZE hookrelay.deliveries`, nil},
		{`VACUUM ANALYZE hookrelay.attempts`, nil},
		{`VACUUM ANALYZE hookrelay.event_keys`, nil}, // a view when unpartitioned: passed by with a warning
	})
	if err != nil {
		return fmt.Errorf("seed day: %w", err)
	}
	return nil
}
