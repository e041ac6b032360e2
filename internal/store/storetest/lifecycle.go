package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func testMigrateTwice(t *testing.T, s store.DB) {
	ctx := context.Background()
	for range 2 {
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("Migrate on a migrated store: %v", err)
		}
	}
	e := newEvent("stripe", "evt_1")
	checkInserted(t, ingest(t, s, item(e, "billing")), true)
	checkEvent(t, getEvent(t, s, e.ID), e)
}

func testPing(t *testing.T, s store.DB) {
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func testCancelledContext(t *testing.T, s store.DB) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := newEvent("stripe", "evt_1")
	if _, err := s.Ingest(ctx, []store.IngestItem{item(e, "billing")}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ingest with a cancelled context: error = %v, want ErrUnavailable", err)
	}
	checkNoEvent(t, s, e.ID)
}

// testListenAsDeclared checks that Listen does what SupportsListener
// declares: it listens when the driver supports it, and fails with
// ErrNotSupported when it does not.
func testListenAsDeclared(t *testing.T, s store.DB) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := s.Listen(ctx)
	if !s.SupportsListener() {
		cancel()
		if !errors.Is(err, store.ErrNotSupported) || ch != nil {
			t.Errorf("Listen on a driver without a listener = %v, %v; want no channel and ErrNotSupported", ch, err)
		}
		return
	}
	if err != nil {
		cancel()
		t.Fatalf("Listen on a driver with a listener: %v", err)
	}
	cancel()
	for range ch { // closed once ctx is done
	}
}
