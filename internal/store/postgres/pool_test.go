package postgres_test

import (
	"context"
	"log/slog"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/postgres"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// appPool returns a pool as an application opens it, whose search_path
// selects a test schema of the application's, and the name of another for
// hookrelay's tables: what runs on the pool finds hookrelay's tables only
// by their schema.
func appPool(tb testing.TB) (*pgxpool.Pool, string) {
	tb.Helper()
	u, err := url.Parse(testdb.PostgresURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(u.String())
	if err != nil {
		tb.Fatal(err)
	}
	cfg.MaxConns = 5
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	theirs, err := url.Parse(testdb.PostgresURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return pool, theirs.Query().Get("search_path")
}

// TestConformanceOnApplicationPool runs the conformance suite on a store
// opened on an application's pool whose search_path does not name
// hookrelay's schema: every statement, and every trigger, must name the
// tables with their schema.
func TestConformanceOnApplicationPool(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.DB {
		pool, schema := appPool(t)
		s := storetest.Migrated(t, func(ctx context.Context) (*postgres.Store, error) {
			return postgres.OpenPool(ctx, pool, postgres.WithTestPartitions(postgres.Options{Schema: schema}), slog.New(slog.DiscardHandler))
		})
		postgres.SetReplayBatch(s, 2)
		return s
	})
}

// TestApplicationPoolLeftAsItWas opens a store on an application's pool
// and closes it: the pool keeps its size and stays open.
func TestApplicationPoolLeftAsItWas(t *testing.T) {
	t.Parallel()
	pool, schema := appPool(t)
	ctx := context.Background()
	s, err := postgres.OpenPool(ctx, pool, postgres.Options{Schema: schema, IngestConns: 50, OtherConns: 50}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := pool.Config().MaxConns; got != 5 {
		t.Errorf("pool MaxConns = %d after the store, want 5", got)
	}
	if err := pool.Ping(ctx); err != nil {
		t.Errorf("pool after the store closed: %v", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&n); err != nil || n != 0 {
		t.Errorf("tables in the application's schema = %d (%v), want 0: hookrelay's are in %s", n, err, schema)
	}
}
