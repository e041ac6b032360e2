package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestCountersBackfilled checks that the counters' migrations count the
// rows stored before them.
func TestCountersBackfilled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, testdb.PostgresURL(t), WithTestPartitions(Options{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	var before []sqlstore.Migration
	for _, m := range ms {
		if m.Version <= storetest.CountersFrom {
			before = append(before, m)
		}
	}
	if err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		_, err := s.apply(ctx, tx, before)
		return err
	}); err != nil {
		t.Fatalf("migrate to %d: %v", storetest.CountersFrom, err)
	}
	storetest.CheckCountersBackfilled(t, storetest.Legacy{
		Store: s,
		Exec: func(ctx context.Context, query string, args ...any) error {
			_, err := s.other.Exec(ctx, s.opsSQL.SQL(query), args...)
			return err
		},
		Time: func(t time.Time) any { return t },
	})
}
