package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testdb"
)

// BenchmarkClaimHistory runs BenchClaim on a destination whose history
// holds 10 000, then 1 000 000, finished deliveries: the claim's median
// should not grow with them.
func BenchmarkClaimHistory(b *testing.B) {
	for _, done := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("done=%d", done), func(b *testing.B) {
			url := testdb.PostgresURL(b)
			s := openTestURL(b, url)
			seedHistory(b, url, done)
			storetest.BenchClaim(b, s)
		})
	}
}

// seedHistory stores n events of the past, each with one delivery to
// billing done long ago, in one statement per table, then has the tables
// vacuumed and analyzed, as autovacuum would.
func seedHistory(b *testing.B, url string, n int) {
	b.Helper()
	seed(b, url, "seed history", []seedStatement{
		{`INSERT INTO events (id, source, provider_event_id, id_origin, type, body, content_type,
			signature_slot, occurred_at, received_at)
		SELECT 'evt_hist_' || lpad(g::text, 10, '0'), 'stripe', 'hist_' || g, 'header', 'invoice.paid',
			convert_to('{"id":"hist_' || g || '"}', 'UTF8'), 'application/json', 0,
			now() - interval '30 days' + g * interval '1 second', now() - interval '30 days' + g * interval '1 second'
		FROM generate_series(1, $1::integer) AS g`, []any{n}},
		{`INSERT INTO deliveries (event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
			last_status_code, created_at, updated_at, finished_at)
		SELECT id, 'billing', 'done', 1, CASE WHEN random() < 0.5 THEN 'sub_' || (random() * 1000)::int ELSE '' END,
			received_at, received_at, 200, received_at, received_at, received_at
		FROM events WHERE id LIKE 'evt_hist_%'`, nil},
		{`VACUUM ANALYZE events`, nil},
		{`VACUUM ANALYZE deliveries`, nil},
	})
}

// seedStatement is one statement of a benchmark's seed, and its
// arguments.
type seedStatement struct {
	sql  string
	args []any
}

// seed runs statements in order on a connection of its own to url; what
// names the seed in a failure.
func seed(b *testing.B, url, what string, statements []seedStatement) {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	for _, st := range statements {
		if _, err := conn.Exec(ctx, st.sql, st.args...); err != nil {
			b.Fatalf("%s: %v", what, err)
		}
	}
}
