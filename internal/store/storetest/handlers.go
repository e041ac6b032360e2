package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// registerHandlers calls RegisterHandlers and fails the test on error.
func registerHandlers(t *testing.T, s store.DB, now time.Time, ds ...store.HandlerDestination) []store.HandlerDestination {
	t.Helper()
	got, err := s.RegisterHandlers(context.Background(), ds, now)
	if err != nil {
		t.Fatalf("RegisterHandlers: %v", err)
	}
	return got
}

// testHandlerRegistry checks that handler destinations are registered
// with their definition, keep when they were first registered while their
// definition is unchanged, take a new time when it changes, and are listed
// by name.
func testHandlerRegistry(t *testing.T, s store.DB) {
	if hs, err := s.HandlerDestinations(context.Background()); err != nil || hs == nil || len(hs) != 0 {
		t.Fatalf("HandlerDestinations of a new store = %v, %v; want none, non-nil", hs, err)
	}
	orders := store.HandlerDestination{Name: "orders", Sources: []string{"stripe", "shop"}, Types: []string{"invoice.*"}, OrderingKey: "data.object.id"}
	audit := store.HandlerDestination{Name: "audit", Sources: []string{"stripe"}}
	first := baseTime
	got := registerHandlers(t, s, first, orders, audit)
	checkHandler(t, got[0], orders, first, first)
	checkHandler(t, got[1], audit, first, first)

	again := first.Add(time.Hour)
	got = registerHandlers(t, s, again, orders)
	checkHandler(t, got[0], orders, first, again)

	changed := audit
	changed.Types = []string{"charge.*"}
	later := again.Add(time.Hour)
	got = registerHandlers(t, s, later, changed)
	checkHandler(t, got[0], changed, later, later)

	hs, err := s.HandlerDestinations(context.Background())
	if err != nil || len(hs) != 2 {
		t.Fatalf("HandlerDestinations = %v, %v; want audit and orders", hs, err)
	}
	checkHandler(t, hs[0], changed, later, later)
	checkHandler(t, hs[1], orders, first, again)
}

// checkHandler fails unless got is want's definition, registered at
// registered and seen at seen.
func checkHandler(t *testing.T, got, want store.HandlerDestination, registered, seen time.Time) {
	t.Helper()
	norm := func(l []string) string {
		if l == nil {
			l = []string{}
		}
		return fmt.Sprint(l)
	}
	if got.Name != want.Name || norm(got.Sources) != norm(want.Sources) || norm(got.Types) != norm(want.Types) || got.OrderingKey != want.OrderingKey {
		t.Errorf("handler destination = %+v, want %+v", got, want)
	}
	checkTime(t, want.Name+" RegisteredAt", got.RegisteredAt, registered)
	checkTime(t, want.Name+" SeenAt", got.SeenAt, seen)
}
