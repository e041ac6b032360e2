package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// rejection returns a rejection from source with a skew in whole
// milliseconds, which is what stores keep.
func rejection(source string, skew time.Duration, hasSkew bool) store.Rejection {
	return store.Rejection{
		At:         baseTime.Add(time.Duration(len(source)) * time.Second),
		Source:     source,
		Reason:     "signature matches no active secret",
		RemoteAddr: "203.0.113.7:51234",
		BodySize:   int64(100 * len(source)),
		Skew:       skew,
		HasSkew:    hasSkew,
	}
}

// checkRejections fails unless got is want, newest first: the same records
// with increasing ids in the order they were recorded.
func checkRejections(t *testing.T, got []store.Rejection, want ...store.Rejection) {
	t.Helper()
	if got == nil || len(got) != len(want) {
		t.Fatalf("got %d rejections (nil %t), want %d", len(got), got == nil, len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.Source != w.Source || g.Reason != w.Reason || g.RemoteAddr != w.RemoteAddr ||
			g.BodySize != w.BodySize || g.Skew != w.Skew || g.HasSkew != w.HasSkew {
			t.Errorf("rejection %d = %+v, want %+v", i, g, w)
		}
		checkTime(t, "At", g.At, w.At)
		if i > 0 && g.ID >= got[i-1].ID {
			t.Errorf("rejection %d has id %d, not below %d", i, g.ID, got[i-1].ID)
		}
	}
}

// rejections calls Rejections and fails the test on error.
func rejections(t *testing.T, s store.DB, limit int) []store.Rejection {
	t.Helper()
	rs, err := s.Rejections(context.Background(), limit)
	if err != nil {
		t.Fatalf("Rejections(%d): %v", limit, err)
	}
	return rs
}

func testRejectionsNewestFirst(t *testing.T, s store.DB) {
	ctx := context.Background()
	a := rejection("a", 0, false)
	b := rejection("bb", -90*time.Second, true)
	c := rejection("ccc", 1500*time.Millisecond, true)
	d := rejection("dddd", 0, true)
	if err := s.RecordRejections(ctx, []store.Rejection{a, b, c}); err != nil {
		t.Fatalf("RecordRejections: %v", err)
	}
	if err := s.RecordRejections(ctx, nil); err != nil {
		t.Fatalf("RecordRejections(nil): %v", err)
	}
	if err := s.RecordRejections(ctx, []store.Rejection{d}); err != nil {
		t.Fatalf("RecordRejections: %v", err)
	}
	checkRejections(t, rejections(t, s, 10), d, c, b, a)
	checkRejections(t, rejections(t, s, 2), d, c)
	checkRejections(t, rejections(t, s, 0))
}

func testRejectionsTrim(t *testing.T, s store.DB) {
	ctx := context.Background()
	rs := []store.Rejection{
		rejection("a", 0, false), rejection("bb", 0, false), rejection("ccc", 0, false),
		rejection("dddd", 0, false), rejection("eeeee", 0, false),
	}
	if err := s.RecordRejections(ctx, rs); err != nil {
		t.Fatalf("RecordRejections: %v", err)
	}
	for _, step := range []struct {
		keep        int
		wantDeleted int64
		wantLeft    []store.Rejection
	}{
		{keep: 10, wantDeleted: 0, wantLeft: []store.Rejection{rs[4], rs[3], rs[2], rs[1], rs[0]}},
		{keep: 2, wantDeleted: 3, wantLeft: []store.Rejection{rs[4], rs[3]}},
		{keep: 2, wantDeleted: 0, wantLeft: []store.Rejection{rs[4], rs[3]}},
		{keep: 0, wantDeleted: 2, wantLeft: nil},
	} {
		n, err := s.TrimRejections(ctx, step.keep)
		if err != nil {
			t.Fatalf("TrimRejections(%d): %v", step.keep, err)
		}
		if n != step.wantDeleted {
			t.Errorf("TrimRejections(%d) deleted %d, want %d", step.keep, n, step.wantDeleted)
		}
		checkRejections(t, rejections(t, s, 10), step.wantLeft...)
	}
}
