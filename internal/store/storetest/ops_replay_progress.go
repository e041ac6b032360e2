package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// errStop is what a test's Progress returns to stop a replay.
var errStop = errors.New("storetest: stop")

// testReplayProgress: Progress is told after every batch of at most
// MaxBatch deliveries, in event id order; when it stops the walk, exactly
// the deliveries it was told of are re-armed, the result says so, and the
// audit row records it.
func testReplayProgress(t *testing.T, s store.DB) {
	ops := s
	const n = 7
	events := make([]store.Event, n)
	for i := range events {
		events[i] = eventAt("stripe", fmt.Sprintf("evt_p%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		ingest(t, s, item(events[i], "billing"))
	}
	now := baseTime.Add(time.Second)
	f := store.EventFilter{Source: "stripe"}

	type step struct {
		done store.ReplayResult
		last string
	}
	var steps []step
	// MaxBatch 1 is below every driver's batch, also the suite's.
	res := replay(t, ops, store.ReplayRequest{Filter: f, Now: now, MaxBatch: 1, Actor: "ops",
		Progress: func(done store.ReplayResult, last string) error {
			steps = append(steps, step{done, last})
			return nil
		}})
	var want []step
	for i, e := range events {
		want = append(want, step{store.ReplayResult{Matched: int64(i + 1), Rearmed: int64(i + 1)}, e.ID})
	}
	if fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Errorf("progress = %+v, want %+v", steps, want)
	}
	if res != want[len(want)-1].done {
		t.Errorf("replay = %+v, want the last progress %+v", res, want[len(want)-1].done)
	}

	// Stopped after the third batch: the first three events are re-armed
	// once more, the others are not.
	steps = nil
	res, err := ops.Replay(context.Background(), store.ReplayRequest{Filter: f, Now: now, MaxBatch: 1, Actor: "interrupted",
		Progress: func(done store.ReplayResult, last string) error {
			steps = append(steps, step{done, last})
			if len(steps) == 3 {
				return errStop
			}
			return nil
		}})
	if !errors.Is(err, errStop) {
		t.Fatalf("stopped replay: error %v, want the one Progress returned", err)
	}
	if res != (store.ReplayResult{Matched: 3, Rearmed: 3}) || len(steps) != 3 || steps[2].last != events[2].ID {
		t.Errorf("stopped replay = %+v after %+v, want 3 re-armed after 3 steps", res, steps)
	}
	for i, e := range events {
		want := 2
		if i > 2 {
			want = 1
		}
		if d := theDelivery(t, s, e.ID); d.ReplayCount != want {
			t.Errorf("event %d: replay_count %d, want %d", i, d.ReplayCount, want)
		}
	}
	// A count that is part of another operation writes no audit row.
	if res := replay(t, ops, store.ReplayRequest{Filter: f, Now: now, DryRun: true, NoAuditRow: true, Actor: "count"}); res.Matched != n {
		t.Errorf("count = %+v, want %d matched", res, n)
	}
	rows, err := ops.AuditLog(context.Background(), baseTime, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Actor != "interrupted" || rows[0].Rearmed != 3 || rows[0].Matched != 3 {
		t.Errorf("audit rows %+v; want the stopped replay's first, with 3 re-armed, and no count", rows)
	}
}
