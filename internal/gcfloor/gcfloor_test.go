package gcfloor

import (
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestPercentFor checks the GOGC chosen for a live heap: high enough that
// the next collection comes at the floor, capped where the runtime's
// minimum heap would pass the floor, and the base once half the floor is
// live.
func TestPercentFor(t *testing.T) {
	const floor = 64 << 20
	for _, tc := range []struct {
		name string
		live uint64
		base int
		want int
	}{
		{"before any collection", 0, 100, 1600},
		{"a tiny heap", 1 << 20, 100, 1600},
		{"the cap's edge", 4 << 20, 100, 1500},
		{"a quarter of the floor", 16 << 20, 100, 300},
		{"half the floor", 32 << 20, 100, 100},
		{"above the floor", 200 << 20, 100, 100},
		{"a higher base", 16 << 20, 400, 400},
		{"a base above the cap", 1 << 20, 2000, 2000},
		{"collection off", 1 << 20, -1, -1},
	} {
		if got := PercentFor(tc.live, floor, tc.base); got != tc.want {
			t.Errorf("%s: PercentFor(%d, %d, %d) = %d, want %d", tc.name, tc.live, floor, tc.base, got, tc.want)
		}
	}
}

// garbage keeps the allocations of churn from being optimized away.
var garbage []byte

// churn allocates n bytes in short-lived 32 KiB slices and returns how many
// collections ran meanwhile.
func churn(n int) uint32 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n / (32 << 10) {
		garbage = make([]byte, 32<<10)
	}
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

// TestTunerCollectsLessOnASmallHeap churns 256 MiB through a small heap
// with the tuner running and after it stopped, and checks that the floor
// cuts the collections by far, that GOGC is raised while the tuner runs
// and that Stop puts it back.
func TestTunerCollectsLessOnASmallHeap(t *testing.T) {
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	runtime.GC()

	tuner := Start(DefaultFloor, slog.New(slog.NewTextHandler(io.Discard, nil)))
	runtime.GC() // the tuner sets GOGC from this collection's live heap
	raised := readPercent()
	withFloor := churn(256 << 20)
	tuner.Stop()
	tuner.Stop() // a second Stop changes nothing
	restored := readPercent()
	runtime.GC()
	without := churn(256 << 20)

	t.Logf("collections over 256 MiB: %d with the floor, %d without; GOGC %d while tuned", withFloor, without, raised)
	if raised <= 100 {
		t.Errorf("GOGC while tuned = %d, want above 100", raised)
	}
	if restored != 100 {
		t.Errorf("GOGC after Stop = %d, want 100", restored)
	}
	if withFloor*4 > without {
		t.Errorf("collections with the floor = %d, want at most a quarter of the %d without", withFloor, without)
	}
	if after := readPercent(); after != 100 {
		t.Errorf("GOGC after collections following Stop = %d, want 100", after)
	}
}
