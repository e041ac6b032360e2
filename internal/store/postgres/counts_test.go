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
