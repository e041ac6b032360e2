package postgres

import (
	"context"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestPendingUntilMigrated(t *testing.T) {
	t.Parallel()
	dbURL := testdb.PostgresURL(t)
	storetest.PendingUntilMigrated(t, func(ctx context.Context) (*Store, error) {
		return Open(ctx, dbURL, WithTestPartitions(Options{IngestConns: 1, OtherConns: 1}), nil)
	}, migrationNames(t))
}

// migrationNames returns the names of the embedded migrations, in order.
func migrationNames(t *testing.T) []string {
	t.Helper()
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return names
}
