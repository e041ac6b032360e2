package sqlstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

// keyedReplayer is a RangeReplayer over a list of keys held in memory: it
// tests how RunReplay walks and splits a selection, which no database
// decides. Every key a re-arm reaches is counted; failAt, when set, fails
// the stretch that holds it.
type keyedReplayer struct {
	keys    []ReplayKey // in key order
	failAt  *ReplayKey
	mu      sync.Mutex
	rearmed map[ReplayKey]int
	audited *store.ReplayResult
}

func newKeyedReplayer(n int) *keyedReplayer {
	r := &keyedReplayer{rearmed: map[ReplayKey]int{}}
	for i := range n {
		r.keys = append(r.keys, ReplayKey{EventID: fmt.Sprintf("evt_%05d", i/2), Destination: fmt.Sprintf("d%d", i%2)})
	}
	return r
}

func compareKeys(a, b ReplayKey) int {
	return cmp.Or(cmp.Compare(a.EventID, b.EventID), cmp.Compare(a.Destination, b.Destination))
}

// from returns the index of the first key after after.
func (r *keyedReplayer) from(after ReplayKey) int {
	i, found := slices.BinarySearchFunc(r.keys, after, compareKeys)
	if found {
		i++
	}
	return i
}

func (r *keyedReplayer) ReplayBatch(_ context.Context, after ReplayKey, n int, dryRun bool, _ JobWrite) (ReplayBatch, error) {
	i := r.from(after)
	sel := r.keys[i:min(len(r.keys), i+n)]
	if !dryRun {
		return r.rearm(sel)
	}
	b := ReplayBatch{Selected: len(sel)}
	if len(sel) > 0 {
		b.Last = sel[len(sel)-1]
	}
	return b, nil
}

func (r *keyedReplayer) ReplayRange(_ context.Context, after, upto ReplayKey, open bool) (ReplayBatch, error) {
	sel := r.keys[r.from(after):]
	if !open {
		sel = sel[:r.from(upto)-r.from(after)]
	}
	return r.rearm(sel)
}

func (r *keyedReplayer) rearm(sel []ReplayKey) (ReplayBatch, error) {
	if r.failAt != nil && slices.Contains(sel, *r.failAt) {
		return ReplayBatch{}, errors.New("stretch failed")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range sel {
		r.rearmed[k]++
	}
	b := ReplayBatch{Selected: len(sel), Rearmed: int64(len(sel))}
	if len(sel) > 0 {
		b.Last = sel[len(sel)-1]
	}
	return b, nil
}

func (r *keyedReplayer) ReplayStretches() int { return 3 }

func (r *keyedReplayer) ReplayDeferred(context.Context) (int64, error) { return 0, nil }

func (r *keyedReplayer) ReplayAudit(_ context.Context, res store.ReplayResult) error {
	r.audited = &res
	return nil
}

func TestRunReplayStretchesReArmEveryDeliveryOnce(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 95} {
		r := newKeyedReplayer(n)
		res, err := RunReplay(context.Background(), r, store.ReplayRequest{}, 10)
		if err != nil {
			t.Fatalf("%d keys: %v", n, err)
		}
		if res.Rearmed != int64(n) || res.Matched != int64(n) {
			t.Errorf("%d keys: result %+v", n, res)
		}
		for _, k := range r.keys {
			if r.rearmed[k] != 1 {
				t.Errorf("%d keys: %v re-armed %d times, want once", n, k, r.rearmed[k])
			}
		}
		if r.audited == nil || *r.audited != res {
			t.Errorf("%d keys: audit row %v, want %+v", n, r.audited, res)
		}
	}
}

func TestRunReplayStretchFailureStopsTheWalk(t *testing.T) {
	r := newKeyedReplayer(200)
	r.failAt = &r.keys[55]
	res, err := RunReplay(context.Background(), r, store.ReplayRequest{}, 10)
	if err == nil || !strings.Contains(err.Error(), "stretch failed") || res.Rearmed >= 200 {
		t.Fatalf("replay with a failing stretch: %+v, %v; want an error and not every delivery re-armed", res, err)
	}
	var got int64
	for _, k := range r.keys {
		got += int64(r.rearmed[k])
	}
	if got != res.Rearmed {
		t.Errorf("%d deliveries re-armed, result says %d", got, res.Rearmed)
	}
	if r.audited == nil || *r.audited != res {
		t.Errorf("audit row %v, want what was re-armed, %+v", r.audited, res)
	}
}

func TestRunReplayWithProgressWalksInOrder(t *testing.T) {
	r := newKeyedReplayer(35)
	var lasts []string
	res, err := RunReplay(context.Background(), r, store.ReplayRequest{
		Progress: func(_ store.ReplayResult, last string) error {
			lasts = append(lasts, last)
			return nil
		},
	}, 10)
	if err != nil || res.Rearmed != 35 {
		t.Fatalf("replay: %+v, %v", res, err)
	}
	if !slices.IsSorted(lasts) || len(lasts) != 4 {
		t.Errorf("progress told of %v, want four batches in order", lasts)
	}
}
