package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

func TestPendingUntilMigrated(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.db")
	storetest.PendingUntilMigrated(t, func(ctx context.Context) (*Store, error) {
		return Open(ctx, path, nil)
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
