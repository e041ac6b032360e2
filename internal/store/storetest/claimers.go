package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// progress wakes idle claimers when another one finished a delivery or
// new deliveries arrived, so that they do not poll in a busy loop, and for
// good once all are done.
type progress struct {
	signal   chan struct{} // one token per event, up to its capacity
	finished chan struct{} // closed once all deliveries are done
	once     sync.Once
}

func newProgress() *progress {
	return &progress{signal: make(chan struct{}, 64), finished: make(chan struct{})}
}

// made reports that a delivery was completed or created.
func (p *progress) made() {
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

// finish wakes every claimer for good.
func (p *progress) finish() { p.once.Do(func() { close(p.finished) }) }

// wait returns after the next progress, or at once when all is done.
func (p *progress) wait() {
	select {
	case <-p.signal:
	case <-p.finished:
	}
}

// testConcurrentClaimers has 8 claimers drain 2 000 deliveries, a quarter
// of them without a key and the rest spread over 40 keys, completing each
// claim: every delivery is claimed exactly once, no two claimers ever hold
// deliveries of one key at once, and each key's deliveries go in order.
func testConcurrentClaimers(t *testing.T, s store.DB) {
	const (
		claimers = 8
		total    = 2000
		keys     = 40
		batch    = 500
	)
	keyOf := map[string]string{} // by event id
	rankOf := map[string]int{}   // by event id: its place in its key
	for start := 0; start < total; start += batch {
		items := make([]store.IngestItem, 0, batch)
		for i := start; i < start+batch; i++ {
			e := orderedEvent(fmt.Sprintf("evt_%04d", i), baseTime.Add(time.Duration(i)*time.Millisecond), baseTime)
			key := ""
			if i%4 != 0 {
				key = fmt.Sprintf("key_%02d", i%keys)
			}
			keyOf[e.ID], rankOf[e.ID] = key, i
			items = append(items, keyed(e, "billing", key))
		}
		ingest(t, s, items...)
	}

	var (
		mu      sync.Mutex
		holder  = map[string]int64{} // key → delivery held; guarded by mu
		claimed = map[string]int{}   // event id → times claimed; guarded by mu
		last    = map[string]int{}   // key → rank of the last claimed; guarded by mu
		done    atomic.Int64
		wg      sync.WaitGroup
		prog    = newProgress()
	)
	now := baseTime.Add(time.Minute)
	ctx := context.Background()
	for w := range claimers {
		wg.Go(func() {
			defer prog.finish() // on failure, let the others stop too
			for done.Load() < total && !t.Failed() {
				cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 1 + w%4*4, Lease: time.Hour, Now: now})
				if err != nil {
					t.Errorf("claimer %d: ClaimDeliveries: %v", w, err)
					return
				}
				if len(cs) == 0 {
					prog.wait()
					continue
				}
				mu.Lock()
				for _, c := range cs {
					id := c.Delivery.EventID
					claimed[id]++
					key := keyOf[id]
					if key == "" {
						continue
					}
					if other, ok := holder[key]; ok {
						t.Errorf("claimer %d got delivery %d of key %s while delivery %d holds it", w, c.Delivery.ID, key, other)
					}
					holder[key] = c.Delivery.ID
					if r, ok := last[key]; ok && r > rankOf[id] {
						t.Errorf("key %s: %s claimed after a later event", key, id)
					}
					last[key] = rankOf[id]
				}
				mu.Unlock()
				for _, c := range cs {
					// The key is let go before the outcome is recorded, so
					// that the next claim of the key cannot precede it.
					mu.Lock()
					if key := keyOf[c.Delivery.EventID]; key != "" {
						delete(holder, key)
					}
					mu.Unlock()
					if err := s.CompleteDelivery(ctx, outcome(c, store.StatusDone, now)); err != nil {
						t.Errorf("claimer %d: CompleteDelivery: %v", w, err)
						return
					}
					if done.Add(1) == total {
						prog.finish()
					}
					prog.made()
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if len(claimed) != total {
		t.Errorf("%d deliveries claimed, want %d", len(claimed), total)
	}
	for id, n := range claimed {
		if n != 1 {
			t.Errorf("delivery of %s claimed %d times, want once", id, n)
		}
	}
	checkNextDue(t, s, "billing", time.Time{})
}

// testConcurrentClaimersWithLateEvents has 4 claimers drain 8 keys while
// events older than every one stored keep arriving, each becoming its
// key's head while another delivery of the key may be held: no two
// claimers ever hold deliveries of one key at once, and every delivery is
// claimed exactly once.
func testConcurrentClaimersWithLateEvents(t *testing.T, s store.DB) {
	const (
		claimers = 4
		keys     = 8
		initial  = 200
		batches  = 30
		batch    = 10
		total    = initial + batches*batch
	)
	ctx := context.Background()
	keyOf := map[string]string{} // by event id; guarded by mu once claimers run
	event := func(i int, occurred time.Time) store.IngestItem {
		e := orderedEvent(fmt.Sprintf("evt_%04d", i), occurred, baseTime)
		key := fmt.Sprintf("key_%d", i%keys)
		keyOf[e.ID] = key
		return keyed(e, "billing", key)
	}
	items := make([]store.IngestItem, initial)
	for i := range items {
		items[i] = event(i, baseTime.Add(time.Duration(i)*time.Millisecond))
	}
	ingest(t, s, items...)

	var (
		mu       sync.Mutex
		holder   = map[string]int64{} // key → delivery held; guarded by mu
		claimed  = map[string]int{}   // event id → times claimed; guarded by mu
		done     atomic.Int64
		ingested atomic.Bool
		wg       sync.WaitGroup
		prog     = newProgress()
	)
	wg.Go(func() {
		defer ingested.Store(true)
		defer prog.made()
		for b := range batches {
			items := make([]store.IngestItem, batch)
			mu.Lock()
			for j := range items {
				i := initial + b*batch + j
				items[j] = event(i, baseTime.Add(-time.Duration(i)*time.Second))
			}
			mu.Unlock()
			if _, err := s.Ingest(ctx, items); err != nil {
				t.Errorf("Ingest: %v", err)
				prog.finish()
				return
			}
			prog.made()
		}
	})
	now := baseTime.Add(time.Minute)
	for w := range claimers {
		wg.Go(func() {
			defer prog.finish() // on failure, let the others stop too
			for (!ingested.Load() || done.Load() < total) && !t.Failed() {
				cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 4, Lease: time.Hour, Now: now})
				if err != nil {
					t.Errorf("claimer %d: ClaimDeliveries: %v", w, err)
					return
				}
				if len(cs) == 0 {
					prog.wait()
					continue
				}
				for _, c := range cs {
					mu.Lock()
					id := c.Delivery.EventID
					claimed[id]++
					key := keyOf[id]
					if other, ok := holder[key]; ok {
						t.Errorf("claimer %d got delivery %d of key %s while delivery %d holds it", w, c.Delivery.ID, key, other)
					}
					holder[key] = c.Delivery.ID
					mu.Unlock()
				}
				for _, c := range cs {
					mu.Lock()
					delete(holder, keyOf[c.Delivery.EventID])
					mu.Unlock()
					if err := s.CompleteDelivery(ctx, outcome(c, store.StatusDone, now)); err != nil {
						t.Errorf("claimer %d: CompleteDelivery: %v", w, err)
						return
					}
					if done.Add(1) == total {
						prog.finish()
					}
					prog.made()
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if len(claimed) != total {
		t.Errorf("%d deliveries claimed, want %d", len(claimed), total)
	}
	for id, n := range claimed {
		if n != 1 {
			t.Errorf("delivery of %s claimed %d times, want once", id, n)
		}
	}
}
