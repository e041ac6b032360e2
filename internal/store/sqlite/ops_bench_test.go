package sqlite

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// Operator benchmarks. Their tables are filled by INSERT ... SELECT from
// a recursive CTE, not through Ingest: n events a millisecond apart, over
// five sources, each with one delivery to billing, done.

// openBench opens and migrates a store on a new file.
func openBench(b *testing.B) *Store {
	b.Helper()
	path := filepath.Join(b.TempDir(), "hookrelay.db")
	return storetest.Migrated(b, func(ctx context.Context) (*Store, error) {
		return Open(ctx, path, slog.New(slog.DiscardHandler))
	})
}

// seedOperations stores n events and their deliveries as the operator
// benchmarks describe, every tenth delivery pending when pendingTenth,
// then analyzes.
func seedOperations(b *testing.B, s *Store, n int, pendingTenth bool) {
	b.Helper()
	start := time.Now()
	at := micros(time.Now().Add(-24 * time.Hour))
	pending := `'done'`
	if pendingTenth {
		pending = `CASE WHEN rowid % 10 = 0 THEN 'pending' ELSE 'done' END`
	}
	for _, st := range []struct {
		sql  string
		args []any
	}{
		{`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?1)
INSERT INTO hookrelay.events (id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at)
SELECT printf('evt_seed_%012d', n), 's' || (n % 5), 'evt_' || n, 'header', 'invoice.paid',
	CAST('{"id":"evt_' || n || '","type":"invoice.paid","data":{"object":{"id":"sub_' || (n % 1000) || '"}}}' AS BLOB),
	'application/json', '{}', 0, ?2 + n * 1000, ?2 + n * 1000
FROM g`, []any{n, at}},
		{`INSERT INTO hookrelay.deliveries (event_id, destination, status, attempts, next_attempt_at, order_at,
	last_status_code, created_at, updated_at, finished_at)
SELECT id, 'billing', ` + pending + `, 1, received_at, received_at, 200, received_at, received_at, received_at
FROM hookrelay.events`, nil},
		{`ANALYZE`, nil},
	} {
		if _, err := s.writer.Exec(s.rewriter.SQL(st.sql), st.args...); err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
	b.Logf("seeded %d events and deliveries in %v", n, time.Since(start).Round(time.Second))
}

// BenchmarkReplay1M replays the 1 000 000 deliveries to billing while a
// probe ingests one event every 10 ms beside it (the target: p99 under
// 100 ms), measured alone first. Run it with -benchtime=1x.
func BenchmarkReplay1M(b *testing.B) {
	s := openBench(b)
	const n = 1_000_000
	seedOperations(b, s, n, false)
	storetest.BenchReplayUnderIngest(b, s, storetest.ReplayBench{Filter: store.EventFilter{Destination: "billing"}, Matched: n})
}

// BenchmarkStats5M reads Stats (what GET /api/v1/stats and a /metrics
// scrape cost) with 5 000 000 deliveries stored, one in ten of them
// pending (the target: under 10 ms), beside the GROUP BY over every
// delivery it used to run.
func BenchmarkStats5M(b *testing.B) {
	s := openBench(b)
	seedOperations(b, s, 5_000_000, true)
	storetest.BenchStats(b, s, func(ctx context.Context) error {
		rows, err := s.reader.QueryContext(ctx, `SELECT destination, status, count(*) FROM hookrelay_deliveries GROUP BY destination, status`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	})
}

// BenchmarkSearch1M searches 1 000 000 events for a page of 50: by the
// start of a provider id (a few hundred match, looked up by index), by a
// prefix every event's provider id has (matched while walking the
// events), by the start of a hookrelay id, and by text, reading 10 000
// events a page (the target for each: ≤ 100 ms).
func BenchmarkSearch1M(b *testing.B) {
	s := openBench(b)
	seedOperations(b, s, 1_000_000, false)
	storetest.BenchSearch(b, s, "evt_seed_00000099")
}
