package gcfloor

import (
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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

// heapGoal returns the heap size at which the runtime next collects.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestTunerRaisesTheHeapGoal checks, through the runtime's own figures,
// that while the tuner runs a small heap is next collected at the floor,
// so that churning 256 MiB through it takes a handful of collections, and
// that Stop puts GOGC and the goal back. The counts of collections are
// only bounded from above: a busy machine slows the concurrent marking,
// which can only make them fewer.
func TestTunerRaisesTheHeapGoal(t *testing.T) {
	base := debug.SetGCPercent(100)
	defer debug.SetGCPercent(base)
	runtime.GC()

	tuner := Start(DefaultFloor, slog.New(slog.NewTextHandler(io.Discard, nil)))
	runtime.GC()
	if p := readPercent(); p <= 100 {
		t.Errorf("GOGC while tuned = %d, want above 100", p)
	}
	if goal := heapGoal(); goal < DefaultFloor*95/100 {
		t.Errorf("heap goal while tuned = %d MiB, want the floor, %d MiB", goal>>20, DefaultFloor>>20)
	}
	withFloor := churn(256 << 20)
	// A collection starts once the heap has grown at least 70 % of the
	// way to its goal, so one comes at least every 0.7 floor.
	if most := uint32(256<<20/(DefaultFloor*7/10) + 2); withFloor > most {
		t.Errorf("collections over 256 MiB with the floor = %d, want at most %d", withFloor, most)
	}

	tuner.Stop()
	tuner.Stop() // a second Stop changes nothing
	if p := readPercent(); p != 100 {
		t.Errorf("GOGC after Stop = %d, want 100", p)
	}
	runtime.GC()
	if goal := heapGoal(); goal >= DefaultFloor/2 {
		t.Errorf("heap goal after Stop = %d MiB, want well below the floor", goal>>20)
	}
	without := churn(256 << 20)
	t.Logf("collections over 256 MiB: %d with the floor, %d without", withFloor, without)
	if p := readPercent(); p != 100 {
		t.Errorf("GOGC after collections following Stop = %d, want 100", p)
	}
}
