package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func testMigrateTwice(t *testing.T, s store.Store) {
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

func testPing(t *testing.T, s store.Store) {
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func testCloseMakesUnavailable(t *testing.T, s store.Store) {
	ctx := context.Background()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.Ingest(ctx, []store.IngestItem{item(newEvent("stripe", "evt_1"), "billing")}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ingest after Close: error = %v, want ErrUnavailable", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ping after Close: error = %v, want ErrUnavailable", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func testCancelledContext(t *testing.T, s store.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := newEvent("stripe", "evt_1")
	if _, err := s.Ingest(ctx, []store.IngestItem{item(e, "billing")}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ingest with a cancelled context: error = %v, want ErrUnavailable", err)
	}
	checkNoEvent(t, s, e.ID)
}
