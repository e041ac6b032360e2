package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func testDuplicateAcrossCalls(t *testing.T, s store.DB) {
	first := newEvent("stripe", "evt_1")
	checkInserted(t, ingest(t, s, item(first, "billing")), true)

	dup := newEvent("stripe", "evt_1")
	dup.Body = []byte(`{"id":"evt_1","redelivered":true}`)
	dup.Type = "invoice.updated"
	checkInserted(t, ingest(t, s, item(dup, "crm")), false)

	checkNoEvent(t, s, dup.ID)
	checkEvent(t, getEvent(t, s, first.ID), first)
	checkDestinations(t, deliveries(t, s, first.ID), "billing")
	checkDestinations(t, deliveries(t, s, dup.ID))

	// A retry of the very same item, as after a commit whose outcome the
	// caller never learnt, is a duplicate too, not an error.
	checkInserted(t, ingest(t, s, item(first, "billing", "crm")), false)
	checkDestinations(t, deliveries(t, s, first.ID), "billing")
}

// testIDTaken checks that an event whose hookrelay id another event holds
// fails the batch, committing nothing of it: ids are unique by
// construction, and dropping the event as a duplicate would lose it.
func testIDTaken(t *testing.T, s store.DB) {
	first := newEvent("stripe", "evt_1")
	checkInserted(t, ingest(t, s, item(first, "billing")), true)

	fresh := newEvent("stripe", "evt_2")
	clash := newEvent("stripe", "evt_3")
	clash.ID = first.ID
	_, err := s.Ingest(context.Background(), []store.IngestItem{item(fresh, "billing"), item(clash, "billing")})
	if err == nil {
		t.Fatal("Ingest of an event with a taken id succeeded, want an error")
	}
	if errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ingest of an event with a taken id: error = %v, want one that does not wrap ErrUnavailable", err)
	}
	checkNoEvent(t, s, fresh.ID)
	checkEvent(t, getEvent(t, s, first.ID), first)
}

func testDuplicateWithinBatch(t *testing.T, s store.DB) {
	a := newEvent("stripe", "evt_a")
	dupA := newEvent("stripe", "evt_a")
	dupA.Body = []byte("second copy")
	b := newEvent("stripe", "evt_b")
	dupB := newEvent("stripe", "evt_b")

	got := ingest(t, s, item(b, "billing"), item(a, "billing"), item(dupA, "crm"), item(dupB, "crm"))
	checkInserted(t, got, true, true, false, false)

	checkEvent(t, getEvent(t, s, a.ID), a)
	checkEvent(t, getEvent(t, s, b.ID), b)
	checkNoEvent(t, s, dupA.ID)
	checkNoEvent(t, s, dupB.ID)
	checkDestinations(t, deliveries(t, s, a.ID), "billing")
	checkDestinations(t, deliveries(t, s, b.ID), "billing")
}

func testSameProviderIDOnTwoSources(t *testing.T, s store.DB) {
	onStripe := newEvent("stripe", "evt_1")
	onGitHub := newEvent("github", "evt_1")
	checkInserted(t, ingest(t, s, item(onStripe, "billing"), item(onGitHub, "deploy")), true, true)
	checkEvent(t, getEvent(t, s, onStripe.ID), onStripe)
	checkEvent(t, getEvent(t, s, onGitHub.ID), onGitHub)
}

// testConcurrentIngest has 16 writers ingest the same provider ids, each
// under its own hookrelay ids and in its own order, in batches, and checks
// that each (source, provider id) is stored exactly once, by one winner.
func testConcurrentIngest(t *testing.T, s store.DB) {
	const (
		writers = 16
		keys    = 48
		batch   = 8
	)
	var (
		mu      sync.Mutex
		winners = map[string][]store.Event{} // by provider id
		losers  []string                     // hookrelay ids
		wg      sync.WaitGroup
	)
	for w := range writers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			order := r.Perm(keys)
			for start := 0; start < keys; start += batch {
				items := make([]store.IngestItem, 0, batch)
				for _, k := range order[start : start+batch] {
					items = append(items, item(newEvent([]string{"stripe", "github"}[k%2], fmt.Sprintf("evt_%03d", k)), "billing"))
				}
				got, err := s.Ingest(context.Background(), items)
				if err != nil {
					t.Errorf("writer %d: Ingest: %v", w, err)
					return
				}
				mu.Lock()
				for i, o := range got {
					e := items[i].Event
					if o == store.IngestStored {
						winners[e.Source+"/"+e.ProviderEventID] = append(winners[e.Source+"/"+e.ProviderEventID], e)
					} else {
						losers = append(losers, e.ID)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if len(winners) != keys {
		t.Errorf("%d provider ids inserted, want %d", len(winners), keys)
	}
	for key, es := range winners {
		if len(es) != 1 {
			t.Errorf("%s inserted %d times, want once", key, len(es))
			continue
		}
		checkEvent(t, getEvent(t, s, es[0].ID), es[0])
		checkDestinations(t, deliveries(t, s, es[0].ID), "billing")
	}
	if len(losers) != writers*keys-keys {
		t.Errorf("%d items reported duplicate, want %d", len(losers), writers*keys-keys)
	}
	for _, id := range losers {
		checkNoEvent(t, s, id)
	}
}
