package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

// PendingUntilMigrated checks PendingMigrations on a new database that
// open opens and does not migrate: it lists want, the names of every one
// of the driver's migrations in order, and lists them again (reading
// changed nothing); once Migrate has run, it lists none.
func PendingUntilMigrated[S interface {
	Migrator
	store.MigrationStatus
}](t *testing.T, open func(context.Context) (S, error), want []string) {
	t.Helper()
	ctx := context.Background()
	s, err := open(ctx)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	for range 2 {
		got, err := s.PendingMigrations(ctx)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("PendingMigrations of a new database = %v, %v; want %v", got, err, want)
		}
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	got, err := s.PendingMigrations(ctx)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("PendingMigrations after Migrate = %#v, %v; want an empty list", got, err)
	}
}
