package storetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
)

// resealAll runs ResealEvents and ResealAttempts in batches of batch until
// each re-seals nothing, and returns how many rows each re-sealed.
func resealAll(t *testing.T, s store.DB, batch int) (events, attempts int) {
	t.Helper()
	ctx := context.Background()
	for after := ""; ; {
		n, last, err := s.ResealEvents(ctx, after, batch)
		if err != nil {
			t.Fatalf("ResealEvents(%q): %v", after, err)
		}
		if n == 0 {
			break
		}
		if n > batch || last <= after {
			t.Fatalf("ResealEvents(%q, %d) = %d, %q", after, batch, n, last)
		}
		events, after = events+n, last
	}
	for after := int64(0); ; {
		n, last, err := s.ResealAttempts(ctx, after, batch)
		if err != nil {
			t.Fatalf("ResealAttempts(%d): %v", after, err)
		}
		if n == 0 {
			break
		}
		attempts, after = attempts+n, last
	}
	return events, attempts
}

// keyCounts calls PayloadKeyCounts and fails the test on error.
func keyCounts(t *testing.T, s store.DB) store.KeyCounts {
	t.Helper()
	c, err := s.PayloadKeyCounts(context.Background())
	if err != nil {
		t.Fatalf("PayloadKeyCounts: %v", err)
	}
	return c
}

// checkAllUnder fails unless every event and attempt of s is under key.
func checkAllUnder(t *testing.T, s store.DB, key string, events, attempts int64) {
	t.Helper()
	c := keyCounts(t, s)
	want := store.KeyCounts{Events: map[string]int64{key: events}, Attempts: map[string]int64{key: attempts}}
	if events == 0 {
		want.Events = map[string]int64{}
	}
	if attempts == 0 {
		want.Attempts = map[string]int64{}
	}
	if !maps.Equal(c.Events, want.Events) || !maps.Equal(c.Attempts, want.Attempts) {
		t.Errorf("key counts = %v / %v, want %v / %v", c.Events, c.Attempts, want.Events, want.Attempts)
	}
}

// testResealMovesEveryRow writes rows plain and under k1, re-seals them
// under k2, and reads them back through a store that has only k2.
func testResealMovesEveryRow(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	plain := writeSealed(t, open(nil), "evt_plain")
	old := writeSealed(t, open(TestKeys(t, "k1")), "evt_k1")
	s := open(TestKeys(t, "k2", "k1"))
	current := writeSealed(t, s, "evt_k2")
	before := keyCounts(t, s)
	if want := map[string]int64{"": 1, "k1": 1, "k2": 1}; !maps.Equal(before.Events, want) || !maps.Equal(before.Attempts, want) {
		t.Errorf("key counts before = %v / %v, want %v for both", before.Events, before.Attempts, want)
	}
	events, attempts := resealAll(t, s, 1)
	if events != 2 || attempts != 2 {
		t.Errorf("re-sealed %d events and %d attempts, want 2 and 2", events, attempts)
	}
	checkAllUnder(t, s, "k2", 3, 3)
	if events, attempts := resealAll(t, s, 10); events != 0 || attempts != 0 {
		t.Errorf("a second run re-sealed %d events and %d attempts, want none", events, attempts)
	}
	checkReads(t, open(TestKeys(t, "k2")), plain, old, current)
}

// testResealResumes stops a run after one batch and starts another from
// the beginning, on another store, as a command run again would.
func testResealResumes(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	s := open(TestKeys(t, "k1"))
	var rows []sealedRow
	for i := range 5 {
		rows = append(rows, writeSealed(t, s, fmt.Sprintf("evt_%d", i)))
	}
	s = open(TestKeys(t, "k2", "k1"))
	if n, _, err := s.ResealEvents(context.Background(), "", 2); err != nil || n != 2 {
		t.Fatalf("ResealEvents = %d, %v; want 2", n, err)
	}
	if c := keyCounts(t, s); c.Events["k1"] != 3 || c.Events["k2"] != 2 {
		t.Errorf("after one batch: %v, want 3 under k1 and 2 under k2", c.Events)
	}
	s = open(TestKeys(t, "k2", "k1"))
	if events, attempts := resealAll(t, s, 2); events != 3 || attempts != 5 {
		t.Errorf("the resumed run re-sealed %d events and %d attempts, want 3 and 5", events, attempts)
	}
	checkAllUnder(t, s, "k2", 5, 5)
	checkReads(t, open(TestKeys(t, "k2")), rows...)
}

// testResealUnderLoad re-seals while events keep arriving and being
// delivered under the new key: no event is lost or changed, and no row is
// left under the old key.
func testResealUnderLoad(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	ctx := context.Background()
	old := open(TestKeys(t, "k1"))
	const before, during = 60, 60
	want := map[string]store.Event{}
	for i := range before {
		e := markedEvent(fmt.Sprintf("evt_before_%d", i), baseTime)
		ingest(t, old, item(e, "d"))
		want[e.ID] = e
	}
	settleAll(t, old, before)

	s := open(TestKeys(t, "k2", "k1"))
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		stop    = make(chan struct{})
		loadErr error
	)
	wg.Go(func() { // ingest and deliver under k2 until the run ends
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i >= during {
				<-stop // its share is in: idle until the run ends
				return
			}
			e := markedEvent(fmt.Sprintf("evt_during_%d", i), baseTime)
			if _, err := s.Ingest(ctx, []store.IngestItem{item(e, "d")}); err != nil {
				mu.Lock()
				loadErr = errors.Join(loadErr, err)
				mu.Unlock()
				return
			}
			mu.Lock()
			want[e.ID] = e
			mu.Unlock()
			if err := completeDue(ctx, s); err != nil {
				mu.Lock()
				loadErr = errors.Join(loadErr, err)
				mu.Unlock()
				return
			}
		}
	})
	resealAll(t, s, 7)
	close(stop)
	wg.Wait()
	if loadErr != nil {
		t.Fatalf("load: %v", loadErr)
	}
	settleAll(t, s, len(want))
	resealAll(t, s, 7) // attempts completed after the run's attempt pass
	c := keyCounts(t, s)
	if len(c.Events) != 1 || c.Events["k2"] != int64(len(want)) {
		t.Errorf("event keys after the run = %v, want all %d under k2", c.Events, len(want))
	}
	if _, ok := c.Attempts["k1"]; ok || c.Attempts[""] != 0 {
		t.Errorf("attempt keys after the run = %v, want none but k2", c.Attempts)
	}
	onlyNew := open(TestKeys(t, "k2"))
	for id, e := range want {
		checkEvent(t, getEvent(t, onlyNew, id), e)
	}
}

// completeDue claims what is due to destination "d" and records each as
// done with a snippet.
func completeDue(ctx context.Context, s store.DB) error {
	cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "d", Max: 10, Lease: testLease, Now: baseTime.Add(time.Hour)})
	if err != nil {
		return err
	}
	for _, c := range cs {
		o := outcome(c, store.StatusDone, baseTime.Add(time.Hour))
		o.Attempt.ResponseSnippet = "ok " + Marker
		if err := s.CompleteDelivery(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

// settleAll delivers every due delivery of "d" and fails unless there were
// n events' worth in all.
func settleAll(t *testing.T, s store.DB, n int) {
	t.Helper()
	ctx := context.Background()
	for range n {
		if err := completeDue(ctx, s); err != nil {
			t.Fatalf("deliver: %v", err)
		}
	}
	total, err := s.CountEvents(ctx, "")
	if err != nil || total != int64(n) {
		t.Fatalf("CountEvents = %d, %v; want %d", total, err, n)
	}
}

// testResealNeedsKeys checks that a store without keys re-seals nothing.
func testResealNeedsKeys(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	s := open(nil)
	writeSealed(t, s, "evt_plain")
	if _, _, err := s.ResealEvents(context.Background(), "", 10); !errors.Is(err, store.ErrNoKeys) {
		t.Errorf("ResealEvents error = %v, want ErrNoKeys", err)
	}
	if _, _, err := s.ResealAttempts(context.Background(), 0, 10); !errors.Is(err, store.ErrNoKeys) {
		t.Errorf("ResealAttempts error = %v, want ErrNoKeys", err)
	}
}

// testResealUnknownKeyFails checks that a row the store's keys do not open
// stops the run with the error and is left as it was.
func testResealUnknownKeyFails(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	r := writeSealed(t, open(TestKeys(t, "k1")), "evt_k1")
	s := open(TestKeys(t, "k2"))
	if n, _, err := s.ResealEvents(context.Background(), "", 10); !errors.Is(err, payloadcrypt.ErrUnknownKey) || n != 0 {
		t.Errorf("ResealEvents = %d, %v; want ErrUnknownKey", n, err)
	}
	if n, _, err := s.ResealAttempts(context.Background(), 0, 10); !errors.Is(err, payloadcrypt.ErrUnknownKey) || n != 0 {
		t.Errorf("ResealAttempts = %d, %v; want ErrUnknownKey", n, err)
	}
	checkAllUnder(t, s, "k1", 1, 1)
	checkEvent(t, getEvent(t, open(TestKeys(t, "k1")), r.e.ID), r.e)
}
