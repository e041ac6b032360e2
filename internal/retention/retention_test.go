package retention_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/retention"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/postgres"
	"github.com/hookrelay/hookrelay/internal/store/sqlite"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// operational is what the tests need of a store.
type operational interface {
	store.Store
	store.Queue
	store.Operations
	store.Activity
}

// eachDriver runs test on a fresh, migrated store of each driver.
func eachDriver(t *testing.T, test func(t *testing.T, s operational)) {
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			test(t, open(t, d.URL(t)))
		})
	}
}

// open opens and migrates the store at url, closed when the test ends.
func open(t *testing.T, url string) operational {
	t.Helper()
	ctx := context.Background()
	var (
		s   operational
		err error
	)
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		s, err = sqlite.Open(ctx, path, nil)
	} else {
		s, err = postgres.Open(ctx, url, postgres.Options{IngestConns: 2, OtherConns: 2}, nil)
	}
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return s
}

const day = 24 * time.Hour

// now is the tests' clock.
var now = time.Date(2026, time.June, 1, 12, 0, 0, 0, time.UTC)

// storeEvent stores an event received age ago with one delivery per
// status given (to destinations d0, d1, ...), and brings each delivery to
// its status.
func storeEvent(t *testing.T, s operational, name string, age time.Duration, statuses ...store.DeliveryStatus) string {
	t.Helper()
	ctx := context.Background()
	received := now.Add(-age)
	id := ulid.MustNew(ulid.Timestamp(received), rand.Reader).String()
	it := store.IngestItem{Event: store.Event{
		ID: id, Source: "stripe", ProviderEventID: name, IDOrigin: store.IDFromHeader,
		Body: []byte(`{"secret":"payload"}`), SignatureSlot: store.NoSlot, ReceivedAt: received,
	}}
	for i := range statuses {
		it.Deliveries = append(it.Deliveries, store.NewDelivery{Destination: fmt.Sprintf("%s-d%d", name, i)})
	}
	if _, err := s.Ingest(ctx, []store.IngestItem{it}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	for i, st := range statuses {
		if st == store.StatusPending {
			continue
		}
		cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: fmt.Sprintf("%s-d%d", name, i), Max: 1, Lease: time.Hour, Now: now})
		if err != nil || len(cs) != 1 {
			t.Fatalf("ClaimDeliveries: %d claims, %v", len(cs), err)
		}
		if st == store.StatusProcessing {
			continue
		}
		c := store.Completion{DeliveryID: cs[0].Delivery.ID, LeaseToken: cs[0].LeaseToken, Status: st, Now: now}
		if st == store.StatusFailed {
			c.NextAttemptAt = now.Add(time.Hour)
		}
		if err := s.CompleteDelivery(ctx, c); err != nil {
			t.Fatalf("CompleteDelivery: %v", err)
		}
	}
	return id
}

// exists tells whether the event id is still stored.
func exists(t *testing.T, s operational, id string) bool {
	t.Helper()
	_, err := s.GetEvent(context.Background(), id)
	return err == nil
}

// TestPrunerKeepsLiveWork deletes old done events by the done window and
// old dead ones by the dead window, keeps recent ones, and never deletes
// an event with pending, failed or processing work, however old.
func TestPrunerKeepsLiveWork(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s operational) {
		var (
			done, skipped, dead = store.StatusDone, store.StatusSkipped, store.StatusDead
			pending, failed     = store.StatusPending, store.StatusFailed
			processing          = store.StatusProcessing
		)
		cases := []struct {
			name     string
			age      time.Duration
			statuses []store.DeliveryStatus
			deleted  bool
		}{
			{"old-done", 31 * day, []store.DeliveryStatus{done, skipped}, true},
			{"old-dead", 91 * day, []store.DeliveryStatus{dead, done}, true},
			{"dead-within-its-window", 31 * day, []store.DeliveryStatus{dead}, false},
			{"recent-done", 29 * day, []store.DeliveryStatus{done}, false},
			{"ancient-pending", 400 * day, []store.DeliveryStatus{pending}, false},
			{"ancient-failed", 400 * day, []store.DeliveryStatus{failed}, false},
			{"ancient-processing", 400 * day, []store.DeliveryStatus{processing}, false},
			{"ancient-done-and-failed", 400 * day, []store.DeliveryStatus{done, failed}, false},
			{"ancient-dead-and-pending", 400 * day, []store.DeliveryStatus{dead, pending}, false},
		}
		ids := map[string]string{}
		for _, c := range cases {
			ids[c.name] = storeEvent(t, s, c.name, c.age, c.statuses...)
		}
		var logs bytes.Buffer
		p := retention.New(retention.Options{
			Store: s, Done: 30 * day, Dead: 90 * day,
			Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Now: func() time.Time { return now },
		})
		n, err := p.Prune(context.Background())
		if err != nil {
			t.Fatalf("Prune: %v", err)
		}
		if n != 2 {
			t.Errorf("Prune deleted %d events, want 2", n)
		}
		for _, c := range cases {
			if got := !exists(t, s, ids[c.name]); got != c.deleted {
				t.Errorf("%s: deleted %t, want %t", c.name, got, c.deleted)
			}
		}
		if !strings.Contains(logs.String(), `"deleted":2`) {
			t.Errorf("log %q does not report 2 deleted", logs.String())
		}
		if strings.Contains(logs.String(), "payload") {
			t.Errorf("log %q carries a payload", logs.String())
		}
	})
}

// TestPrunerDeletesOldActivity deletes the activity counters of the
// minutes older than the longer retention, and keeps those of later ones,
// even of the events it deleted.
func TestPrunerDeletesOldActivity(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s operational) {
		ages := []time.Duration{95 * day, 50 * day, 10 * day}
		for i, age := range ages {
			storeEvent(t, s, fmt.Sprintf("e%d", i), age, store.StatusDone)
		}
		received := func(age time.Duration) int64 {
			t.Helper()
			at := now.Add(-age).Truncate(time.Minute)
			got, err := s.Activity(context.Background(), at, at.Add(time.Minute), time.Minute)
			if err != nil {
				t.Fatalf("Activity: %v", err)
			}
			return got[0].Received
		}
		p := retention.New(retention.Options{Store: s, Done: 30 * day, Dead: 90 * day, Now: func() time.Time { return now }})
		if n, err := p.Prune(context.Background()); n != 2 || err != nil {
			t.Fatalf("Prune = %d, %v; want 2, nil", n, err)
		}
		for i, want := range []int64{0, 1, 1} {
			if got := received(ages[i]); got != want {
				t.Errorf("events received %v ago: %d counted after the pass, want %d", ages[i], got, want)
			}
		}
	})
}

// TestPrunerBatches deletes every prunable event in one pass of several
// batches, and nothing when a window is 0.
func TestPrunerBatches(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s operational) {
		var ids []string
		for i := range 7 {
			ids = append(ids, storeEvent(t, s, fmt.Sprintf("e%d", i), 40*day+time.Duration(i)*time.Millisecond, store.StatusDone))
		}
		dead := storeEvent(t, s, "dead", 400*day, store.StatusDead)
		clock := func() time.Time { return now }

		off := retention.New(retention.Options{Store: s, Dead: 0, Done: 0, Now: clock})
		if n, err := off.Prune(context.Background()); n != 0 || err != nil {
			t.Errorf("Prune without windows = %d, %v; want 0, nil", n, err)
		}
		p := retention.New(retention.Options{Store: s, Done: 30 * day, Batch: 3, Now: clock})
		if n, err := p.Prune(context.Background()); n != 7 || err != nil {
			t.Errorf("Prune in batches of 3 = %d, %v; want 7, nil", n, err)
		}
		for _, id := range ids {
			if exists(t, s, id) {
				t.Errorf("event %s survived", id)
			}
		}
		if !exists(t, s, dead) {
			t.Errorf("a dead event was deleted with no dead window")
		}
	})
}

// TestRunPrunesUntilCancelled runs the pruner: it prunes at once, again
// every interval as events age past their window, tells OnPass what each
// pass deleted, and returns when its context is cancelled.
func TestRunPrunesUntilCancelled(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, s operational) {
		first := storeEvent(t, s, "first", 31*day, store.StatusDone)
		second := storeEvent(t, s, "second", 29*day, store.StatusDone)
		var (
			mu      sync.Mutex
			clock   = now
			deleted int64 // guarded by mu
			passes  int   // guarded by mu
		)
		p := retention.New(retention.Options{
			Store: s, Done: 30 * day, Interval: 10 * time.Millisecond,
			Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return clock },
			OnPass: func(n int64, err error) {
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("a pass failed: %v", err)
				}
				deleted += n
				passes++
			},
		})
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			p.Run(ctx)
		}()
		testkit.Eventually(t, 5*time.Second, "the first event pruned", func() error {
			return testkit.Check(!exists(t, s, first), "it is still stored")
		})
		if !exists(t, s, second) {
			t.Fatalf("the recent event was deleted")
		}
		mu.Lock()
		clock = clock.Add(2 * day)
		mu.Unlock()
		testkit.Eventually(t, 5*time.Second, "the second event pruned", func() error {
			return testkit.Check(!exists(t, s, second), "it is still stored")
		})
		testkit.Eventually(t, 5*time.Second, "OnPass told of both deletions", func() error {
			mu.Lock()
			defer mu.Unlock()
			return testkit.Check(deleted == 2 && passes >= 2, "%d deleted in %d passes", deleted, passes)
		})
		cancel()
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return after its context was cancelled")
		}
	})
}

// TestPrunerDropsPartitions prunes a PostgreSQL event log partitioned by
// day, with both retentions of 30 days: the days that ended before them
// are dropped whole, one that a pending delivery keeps loses only its
// finished events, row by row, and an event of the day that straddles the
// bound waits for its day to be dropped.
func TestPrunerDropsPartitions(t *testing.T) {
	t.Parallel()
	s, err := postgres.Open(context.Background(), testdb.PostgresURL(t), postgres.Options{IngestConns: 2, OtherConns: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.EnablePartitions(ctx, store.PartitionsDaily, now.Add(-40*day), nil); err != nil {
		t.Fatalf("EnablePartitions: %v", err)
	}
	for d := 39; d >= 0; d-- { // the partitions maintenance made day after day
		if _, err := s.MaintainPartitions(ctx, store.PartitionRequest{Period: store.PartitionsDaily, Now: now.Add(-time.Duration(d) * day)}); err != nil {
			t.Fatalf("MaintainPartitions: %v", err)
		}
	}
	ids := map[string]string{
		"dropped":    storeEvent(t, s, "dropped", 36*day, store.StatusDone),
		"live":       storeEvent(t, s, "live", 35*day, store.StatusPending),
		"beside":     storeEvent(t, s, "beside", 35*day, store.StatusDone),
		"straddling": storeEvent(t, s, "straddling", 30*day+time.Hour, store.StatusDone),
		"recent":     storeEvent(t, s, "recent", 10*day, store.StatusDone),
	}
	var logs bytes.Buffer
	p := retention.New(retention.Options{
		Store: s, Done: 30 * day, Dead: 30 * day, Period: store.PartitionsDaily, Partitions: s,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Now: func() time.Time { return now },
	})
	n, err := p.Prune(ctx)
	if err != nil {
		t.Fatalf("Prune: %v", err)
	}
	if n != 1 {
		t.Errorf("Prune deleted %d events row by row, want 1 (beside)", n)
	}
	for name, want := range map[string]bool{"dropped": false, "live": true, "beside": false, "straddling": true, "recent": true} {
		if got := exists(t, s, ids[name]); got != want {
			t.Errorf("%s: stored %t, want %t", name, got, want)
		}
	}
	for _, want := range []string{`"partition":"p20260426_0000","events":1,"deliveries":1`,
		`"partition":"p20260427_0000","live":"live-d0:pending=1"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log %s lacks %s", logs.String(), want)
		}
	}
	ps, err := s.ListPartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if last := ps[len(ps)-2]; !last.To.After(now.Add(store.PartitionsDaily.Lead())) {
		t.Errorf("the partitions end at %v, want them made ahead of %v", last.To, now)
	}
}
