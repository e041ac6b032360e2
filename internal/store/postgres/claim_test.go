package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestClaimSkipsKeyAnotherClaimLocks holds, from another session, the
// advisory lock a claim takes on (billing, A), as a concurrent claim of
// that key would: the claim leaves key A alone and takes the rest.
func TestClaimSkipsKeyAnotherClaimLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openURL(t, testdb.PostgresURL(t))
	now := time.Now()
	var items []store.IngestItem
	for _, k := range []struct{ id, key string }{{"a1", "A"}, {"b1", "B"}, {"u", ""}} {
		it := storetest.Item("stripe", k.id, []byte("{}"))
		it.Event.ReceivedAt = now
		it.Deliveries[0].OrderingKey = k.key
		items = append(items, it)
	}
	if _, err := s.Ingest(ctx, items); err != nil {
		t.Fatalf("Ingest: %v", err)
	}

	tx, err := s.other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2 || E'\n' || $3))`, keyLockClass, "billing", "A"); err != nil {
		t.Fatalf("lock key A: %v", err)
	}
	claimed := func() []string {
		cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 10, Lease: time.Minute, Now: now})
		if err != nil {
			t.Fatalf("ClaimDeliveries: %v", err)
		}
		var ids []string
		for _, c := range cs {
			ids = append(ids, c.Delivery.EventID)
		}
		return ids
	}
	if got := claimed(); len(got) != 2 || got[0] != "evt_b1" || got[1] != "evt_u" {
		t.Errorf("claimed %v while key A is locked, want [evt_b1 evt_u]", got)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := claimed(); len(got) != 1 || got[0] != "evt_a1" {
		t.Errorf("claimed %v once key A is free, want [evt_a1]", got)
	}
}
