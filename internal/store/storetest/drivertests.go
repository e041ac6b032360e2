package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Helpers for the drivers' own tests, those that look inside a driver
// where the conformance suite cannot.

// Migrator is a store as a driver's tests open it: one that migrates its
// schema and closes.
type Migrator interface {
	Migrate(ctx context.Context) error
	Close() error
}

// Migrated returns the store open returns, migrated, and closes it when
// the test ends.
func Migrated[S Migrator](tb testing.TB, open func(context.Context) (S, error)) S {
	tb.Helper()
	ctx := context.Background()
	s, err := open(ctx)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	if err := s.Migrate(ctx); err != nil {
		tb.Fatalf("Migrate: %v", err)
	}
	return s
}

// MigrateConcurrently has n stores from open, as n processes would,
// migrate one new database at once. Then, on a store of its own, it
// checks that recorded, which counts the rows of schema_migrations, finds
// each of the want migrations recorded once.
func MigrateConcurrently[S Migrator](t *testing.T, n int, open func(context.Context) (S, error), recorded func(S) (int, error), want int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		s, err := open(context.Background())
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		wg.Go(func() {
			if err := s.Migrate(context.Background()); err != nil {
				t.Errorf("Migrate: %v", err)
			}
		})
	}
	wg.Wait()
	if got, err := recorded(Migrated(t, open)); err != nil || got != want {
		t.Errorf("schema_migrations has %d rows (%v), want %d", got, err, want)
	}
}

// Item returns an event of source with provider id providerID and id
// evt_<providerID>, received now, with body, delivered to billing.
func Item(source, providerID string, body []byte) store.IngestItem {
	return store.IngestItem{
		Event: store.Event{
			ID: "evt_" + providerID, Source: source, ProviderEventID: providerID, IDOrigin: store.IDFromHeader,
			Body: body, SignatureSlot: store.NoSlot, ReceivedAt: time.Now(),
		},
		Deliveries: []store.NewDelivery{{Destination: "billing"}},
	}
}
