package storetest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// digestOf returns a signature digest made from s.
func digestOf(s string) []byte {
	d := sha256.Sum256([]byte(s))
	return d[:]
}

// signed returns an item of e with one delivery and the signature digest
// of s.
func signed(e store.Event, s string) store.IngestItem {
	it := item(e, "billing")
	it.SignatureDigest = digestOf(s)
	return it
}

// testReplayedSignature checks the rule behind a re-posted body-only
// signature, one Ingest after another: a digest stored under one provider
// id of a source refuses any other provider id of that source within
// store.ReplayWindow, earlier in the same batch too, and stores nothing
// for it; a provider's retry under its own id is a duplicate whatever
// digest it carries; other sources, other digests and events without one
// are stored as ever; past the window another id takes the digest over.
func testReplayedSignature(t *testing.T, s store.DB) {
	first := newEvent("github", "delivery-1")
	checkOutcomes(t, ingest(t, s,
		signed(first, "a"),
		item(newEvent("github", "delivery-2"), "billing"),
		signed(newEvent("shop", "webhook-1"), "c"),
	), store.IngestStored, store.IngestStored, store.IngestStored)

	later := func(source, providerID string, after time.Duration) store.Event {
		e := newEvent(source, providerID)
		e.ReceivedAt = first.ReceivedAt.Add(after)
		return e
	}
	cases := []struct {
		name  string
		items []store.IngestItem
		want  []store.IngestOutcome
	}{
		{"another id, same digest", []store.IngestItem{signed(newEvent("github", "delivery-9"), "a")},
			[]store.IngestOutcome{store.IngestReplayedSignature}},
		{"another id, same digest, at the window's end", []store.IngestItem{signed(later("github", "delivery-9", store.ReplayWindow), "a")},
			[]store.IngestOutcome{store.IngestReplayedSignature}},
		{"the same id, same digest", []store.IngestItem{signed(newEvent("github", "delivery-1"), "a")},
			[]store.IngestOutcome{store.IngestDuplicate}},
		{"the same id, another digest", []store.IngestItem{signed(newEvent("github", "delivery-1"), "rotated")},
			[]store.IngestOutcome{store.IngestDuplicate}},
		{"an id stored without a digest, a held digest", []store.IngestItem{signed(newEvent("github", "delivery-2"), "a")},
			[]store.IngestOutcome{store.IngestDuplicate}},
		{"another digest", []store.IngestItem{signed(newEvent("github", "delivery-3"), "b")},
			[]store.IngestOutcome{store.IngestStored}},
		{"the digest on another source", []store.IngestItem{signed(newEvent("shop", "webhook-2"), "a")},
			[]store.IngestOutcome{store.IngestStored}},
		{"the other source's own digest", []store.IngestItem{signed(newEvent("shop", "webhook-3"), "c")},
			[]store.IngestOutcome{store.IngestReplayedSignature}},
		{"no digest", []store.IngestItem{item(newEvent("github", "delivery-4"), "billing")},
			[]store.IngestOutcome{store.IngestStored}},
		{"two ids of one new digest in a batch", []store.IngestItem{
			signed(newEvent("github", "delivery-5"), "d"), signed(newEvent("github", "delivery-6"), "d"),
		}, []store.IngestOutcome{store.IngestStored, store.IngestReplayedSignature}},
		{"one id twice in a batch", []store.IngestItem{
			signed(newEvent("github", "delivery-7"), "e"), signed(newEvent("github", "delivery-7"), "e"),
		}, []store.IngestOutcome{store.IngestStored, store.IngestDuplicate}},
		{"one id in a batch with a new digest, then a held one", []store.IngestItem{
			signed(newEvent("github", "delivery-8"), "f"), signed(newEvent("github", "delivery-8"), "a"),
		}, []store.IngestOutcome{store.IngestStored, store.IngestDuplicate}},
		{"another id past the window", []store.IngestItem{signed(later("github", "delivery-10", store.ReplayWindow+time.Second), "a")},
			[]store.IngestOutcome{store.IngestStored}},
		{"the first id after the take-over", []store.IngestItem{signed(later("github", "delivery-1", store.ReplayWindow+time.Minute), "a")},
			[]store.IngestOutcome{store.IngestDuplicate}},
		{"a third id after the take-over", []store.IngestItem{signed(later("github", "delivery-11", store.ReplayWindow+time.Minute), "a")},
			[]store.IngestOutcome{store.IngestReplayedSignature}},
	}
	for _, c := range cases {
		got, err := s.Ingest(context.Background(), c.items)
		if err != nil {
			t.Fatalf("%s: Ingest: %v", c.name, err)
		}
		for i, it := range c.items {
			switch {
			case i >= len(got) || got[i] != c.want[i]:
				t.Errorf("%s: outcomes %v, want %v", c.name, got, c.want)
			case got[i] == store.IngestStored:
				checkEvent(t, getEvent(t, s, it.Event.ID), it.Event)
			default:
				checkNoEvent(t, s, it.Event.ID)
			}
		}
	}
}

// testReplayedSignatureConcurrent races, round after round, ingests of one
// new digest under several provider ids — and a retry of one of them —
// each in its own batch beside an event without a digest: exactly one of
// them is stored, the retry of the stored id is a duplicate, every other
// one a replayed signature, and the events without a digest are all
// stored.
func testReplayedSignatureConcurrent(t *testing.T, s store.DB) {
	const (
		rounds = 12
		ids    = 4 // provider ids per round; the first one is posted twice
	)
	for r := range rounds {
		var (
			start    = make(chan struct{})
			wg       sync.WaitGroup
			items    = make([]store.IngestItem, ids+1)
			plain    = make([]store.IngestItem, ids+1)
			outcomes = make([][]store.IngestOutcome, ids+1)
			errs     = make([]error, ids+1)
		)
		for g := range items {
			items[g] = signed(newEvent("github", fmt.Sprintf("delivery-%d-%d", r, g%ids)), fmt.Sprint("round ", r))
			plain[g] = item(newEvent("stripe", fmt.Sprintf("evt_%d_%d", r, g)), "billing")
			wg.Go(func() {
				<-start
				outcomes[g], errs[g] = s.Ingest(context.Background(), []store.IngestItem{items[g], plain[g]})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for g, err := range errs {
			switch {
			case err != nil:
				t.Fatalf("round %d: Ingest: %v", r, err)
			case outcomes[g][1] != store.IngestStored:
				t.Errorf("round %d: the event without a digest: %v, want stored", r, outcomes[g][1])
			case outcomes[g][0] == store.IngestStored && winner >= 0:
				t.Fatalf("round %d: delivery %d and delivery %d stored, want one", r, winner%ids, g%ids)
			case outcomes[g][0] == store.IngestStored:
				winner = g
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: outcomes %v, want one stored", r, outcomes)
		}
		for g, it := range items {
			want := store.IngestReplayedSignature
			switch {
			case g == winner:
				want = store.IngestStored
			case it.Event.ProviderEventID == items[winner].Event.ProviderEventID:
				want = store.IngestDuplicate
			}
			if outcomes[g][0] != want {
				t.Errorf("round %d: %s: %v, want %v", r, it.Event.ProviderEventID, outcomes[g][0], want)
			}
			if g != winner {
				checkNoEvent(t, s, it.Event.ID)
			}
		}
		checkEvent(t, getEvent(t, s, items[winner].Event.ID), items[winner].Event)
	}
	if n := countEvents(t, s, "github"); n != rounds {
		t.Errorf("%d events with a digest stored, want %d", n, rounds)
	}
	if n := countEvents(t, s, "stripe"); n != rounds*(ids+1) {
		t.Errorf("%d events without a digest stored, want %d", n, rounds*(ids+1))
	}
}

// testPruneReleasesSignatureDigest checks that retention deletes a
// digest with the event that holds it, so that another provider id may
// store it, and leaves one another event has taken over since.
func testPruneReleasesSignatureDigest(t *testing.T, s store.DB) {
	bare := func(e store.Event, digest string) store.IngestItem { // no delivery: done as stored
		it := item(e)
		it.SignatureDigest = digestOf(digest)
		return it
	}
	held := eventAt("github", "delivery-1", baseTime)
	gone := eventAt("github", "delivery-2", baseTime.Add(time.Millisecond))
	taker := eventAt("github", "delivery-3", baseTime.Add(store.ReplayWindow+time.Second))
	checkOutcomes(t, ingest(t, s, bare(held, "held"), bare(gone, "taken over")), store.IngestStored, store.IngestStored)
	checkOutcomes(t, ingest(t, s, bare(taker, "taken over")), store.IngestStored)

	if n := prune(t, s, store.PruneRequest{DoneBefore: baseTime.Add(time.Second), Limit: 10}); n != 2 {
		t.Fatalf("Prune deleted %d events, want the 2 received first", n)
	}
	after := taker.ReceivedAt.Add(time.Minute)
	checkOutcomes(t, ingest(t, s,
		bare(eventAt("github", "delivery-4", after), "held"),
		bare(eventAt("github", "delivery-5", after.Add(time.Millisecond)), "taken over"),
	), store.IngestStored, store.IngestReplayedSignature)
}

// countEvents calls CountEvents and fails the test on error.
func countEvents(t *testing.T, s store.DB, source string) int64 {
	t.Helper()
	n, err := s.CountEvents(context.Background(), source)
	if err != nil {
		t.Fatalf("CountEvents(%s): %v", source, err)
	}
	return n
}
