package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// LegacyPaused is the destination a legacy database has paused (see
// CheckLegacyMoved).
const LegacyPaused = "legacy-paused"

// LegacyMigrations returns the driver's migrations as an earlier version
// of hookrelay wrote them, naming its tables unqualified, beside the
// application's: all of them but those numbered from, which came after.
func LegacyMigrations(t testing.TB, ms []sqlstore.Migration, from int) []sqlstore.Migration {
	t.Helper()
	var out []sqlstore.Migration
	for _, m := range ms {
		if m.Version >= from {
			continue
		}
		m.SQL = strings.ReplaceAll(m.SQL, "hookrelay.", "")
		out = append(out, m)
	}
	if len(out) == 0 {
		t.Fatal("no legacy migrations")
	}
	return out
}

// CheckLegacyMoved checks s, migrated on a database whose tables an
// earlier version created unqualified, with LegacyPaused paused: the
// destination is still paused (the rows moved with their tables), and the
// tables' triggers, which moved with them, keep counting what is stored
// and delivered now.
func CheckLegacyMoved(t *testing.T, s store.DB) {
	t.Helper()
	ctx := context.Background()
	paused, err := s.Paused(ctx)
	if err != nil {
		t.Fatalf("Paused: %v", err)
	}
	if _, ok := paused[LegacyPaused]; !ok {
		t.Errorf("paused destinations after the move = %v, want %s", paused, LegacyPaused)
	}
	e := newEvent("stripe", "evt_after_move")
	e.ReceivedAt = time.Now().UTC().Truncate(time.Millisecond)
	checkInserted(t, ingest(t, s, item(e, "billing", "audit")), true)
	st, err := s.Stats(ctx, time.Now())
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	for _, d := range []string{"billing", "audit"} {
		if n := st.Destinations[d].Counts[store.StatusPending]; n != 1 {
			t.Errorf("%s pending = %d after the move, want 1 (counted by the moved triggers)", d, n)
		}
	}
	buckets, err := s.Activity(ctx, e.ReceivedAt.Add(-time.Hour), e.ReceivedAt.Add(time.Minute), time.Hour)
	if err != nil {
		t.Fatalf("Activity: %v", err)
	}
	var received int64
	for _, b := range buckets {
		received += b.Received
	}
	if received != 1 {
		t.Errorf("activity received = %d after the move, want 1", received)
	}
}
