package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// CheckExportedMigrations checks the migrations a driver exports for an
// application's migration tool: run applies each file's SQL as such a tool
// would, then s — a store on the same database that has not migrated —
// finds none pending, stores and claims, and migrating applies nothing.
func CheckExportedMigrations(t *testing.T, ms []sqlstore.Migration, run func(sql string) error, s store.DB) {
	t.Helper()
	ctx := context.Background()
	for _, m := range ms {
		if err := run(m.SQL); err != nil {
			t.Fatalf("apply exported %s: %v", m.Name, err)
		}
	}
	pending, err := s.PendingMigrations(ctx)
	if err != nil || len(pending) != 0 {
		t.Fatalf("pending after the exported migrations = %v, %v; want none", pending, err)
	}
	e := newEvent("stripe", "evt_exported")
	checkInserted(t, ingest(t, s, item(e, "billing")), true)
	claims, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 5, Lease: time.Minute, Now: time.Now()})
	if err != nil || len(claims) != 1 {
		t.Fatalf("claim after the exported migrations = %d, %v; want 1", len(claims), err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("Migrate after the exported migrations: %v", err)
	}
}
