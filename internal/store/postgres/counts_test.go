package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestFoldActivity checks that FoldCounts moves the activity deltas into
// their minutes' rows, one row a minute, and that Activity reads the same
// counts before and after.
func TestFoldActivity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openURL(t, testdb.PostgresURL(t))
	start := time.Date(2026, time.March, 3, 9, 30, 0, 0, time.UTC)
	for i := range 6 {
		// Two statements a minute, so two deltas a minute.
		at := start.Add(time.Duration(i) * 30 * time.Second)
		if _, err := s.Ingest(ctx, []store.IngestItem{opsItem(fmt.Sprintf("evt_fold_%d", i), at, []byte(`{}`))}); err != nil {
			t.Fatalf("Ingest: %v", err)
		}
	}
	before, err := s.Activity(ctx, start, start.Add(3*time.Minute), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// The fold's advisory lock is the database's: a fold of another
	// store on it (another test's, in a schema of its own) makes this
	// one skip its turn, so fold until one went through.
	testkit.Eventually(t, 10*time.Second, "the activity deltas folded", func() error {
		if err := s.FoldCounts(ctx); err != nil {
			return err
		}
		var deltas, minutes int
		if err := s.other.QueryRow(ctx, s.sql.SQL(`SELECT (SELECT count(*) FROM hookrelay.activity_deltas), (SELECT count(*) FROM hookrelay.activity_minutes)`)).Scan(&deltas, &minutes); err != nil {
			return err
		}
		return testkit.Check(deltas == 0 && minutes == 3, "%d deltas and %d minutes, want 0 and 3", deltas, minutes)
	})
	after, err := s.Activity(ctx, start, start.Add(3*time.Minute), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for i := range after {
		if after[i] != before[i] || after[i].Received != 2 {
			t.Errorf("minute %d: %+v after the fold, %+v before, want 2 received", i, after[i], before[i])
		}
	}
}

// TestActivityDeliveredOnce checks the statement trigger that counts the
// deliveries an UPDATE sets done (migrations 0028 and 0040): a batch of
// outcomes counts each of its deliveries once, after a first outcome of
// one delivery alone (the size PL/pgSQL may plan the trigger's statement
// for, in a backend, and keep), and an UPDATE of rows already done counts
// none of them again.
func TestActivityDeliveredOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openURL(t, testdb.PostgresURL(t))
	start := time.Date(2026, time.March, 3, 9, 30, 0, 0, time.UTC)
	const n = 300
	items := make([]store.IngestItem, n)
	for i := range items {
		items[i] = opsItem(fmt.Sprintf("evt_delivered_%d", i), start, []byte(`{}`))
	}
	if _, err := s.Ingest(ctx, items); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	at := start.Add(time.Minute)
	claims, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: n, Lease: time.Minute, Now: at})
	if err != nil || len(claims) != n {
		t.Fatalf("claim: %d, %v", len(claims), err)
	}
	done := make([]store.Completion, n)
	for i, c := range claims {
		done[i] = store.Completion{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Status: store.StatusDone, Now: at,
			Attempt: store.Attempt{AttemptedAt: at, StatusCode: 200}}
	}
	for _, batch := range [][]store.Completion{done[:1], done[1:]} {
		if _, err := s.CompleteDeliveries(ctx, batch); err != nil {
			t.Fatalf("CompleteDeliveries of %d: %v", len(batch), err)
		}
	}
	delivered := func(when string) {
		t.Helper()
		got, err := s.Activity(ctx, at, at.Add(time.Minute), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Delivered != n {
			t.Errorf("%s: activity %+v, want %d delivered", when, got, n)
		}
	}
	delivered("outcomes")
	if _, err := s.other.Exec(ctx, s.sql.SQL(`UPDATE hookrelay.deliveries SET updated_at = updated_at WHERE status = 'done'`)); err != nil {
		t.Fatal(err)
	}
	delivered("an update of the rows done")
}
