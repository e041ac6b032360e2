// Package gcfloor keeps the garbage collector from running on a heap far
// smaller than the work passing through it.
//
// With GOGC at its default of 100 the collector runs whenever the heap has
// grown to twice what the last collection found live (and at least 4 MiB).
// A relay's live heap is a few MiB, while every delivery allocates its
// request, headers and a copy of the body: a backlog drain allocates about
// 15 KiB per delivery, and the collector ran 60 times a second, each run
// paying for its stop-the-world phases, stack scans and sweep whatever the
// heap's size. Below a floor, this package raises GOGC so that the heap may
// grow to the floor before it is collected; once what is live reaches half
// the floor, GOGC is back to its base and the collector paces itself as
// usual. The heap is then never more than the floor above what GOGC alone
// allows.
package gcfloor

import (
	"log/slog"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultFloor is the heap a relay may grow to before its first collection
// and between collections while little of it is live.
const DefaultFloor = 64 << 20

// heapMinimum is the least heap goal the runtime sets at GOGC=100. It
// scales with GOGC, so the raised GOGC is capped where it would carry the
// minimum above the floor.
const heapMinimum = 4 << 20

// Metrics read by the tuner.
const (
	liveHeapMetric = "/gc/heap/live:bytes"
	gogcMetric     = "/gc/gogc:percent"
)

// Tuner sets GOGC after every collection from the heap that collection
// found live. Stop ends it.
type Tuner struct {
	floor  uint64
	base   int
	logger *slog.Logger

	mu      sync.Mutex // guards the fields below, and SetGCPercent
	stopped bool
	percent int // the GOGC last set
	sample  []metrics.Sample
}

// sentinel is allocated once per collection; its cleanup runs when the
// next collection finds it unreachable. It holds a pointer and is larger
// than the tiny allocator's blocks, so that it is never batched with a
// live object and its cleanup does run.
type sentinel struct {
	_ *byte
	_ [2]uint64
}

// Start begins raising GOGC while the live heap is below floor/2, from the
// GOGC in effect now, which it takes as its base. Call Stop to end it and
// set GOGC back to the base.
func Start(floor uint64, logger *slog.Logger) *Tuner {
	t := &Tuner{
		floor:  floor,
		base:   readPercent(),
		logger: logger,
		sample: []metrics.Sample{{Name: liveHeapMetric}},
	}
	t.percent = t.base
	t.logger.Debug("heap floor set", "floor_bytes", floor, "base_gogc", t.base)
	t.cycle()
	return t
}

// Stop ends the tuning and sets GOGC back to its base. It is safe to call
// more than once.
func (t *Tuner) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.stopped = true
	debug.SetGCPercent(t.base)
}

// cycle sets GOGC for the live heap the last collection found, then waits
// for the next collection.
func (t *Tuner) cycle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	metrics.Read(t.sample)
	if p := PercentFor(t.sample[0].Value.Uint64(), t.floor, t.base); p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
	runtime.AddCleanup(new(sentinel), (*Tuner).cycle, t)
}

// PercentFor returns the GOGC at which a heap with live bytes live is next
// collected at the floor rather than at (1 + base/100) × live: never below
// base, and never so high that the runtime's own minimum heap, which
// scales with GOGC, would exceed the floor.
func PercentFor(live, floor uint64, base int) int {
	if base <= 0 {
		return base // collection is off, or set by someone who meant it
	}
	ceiling := int(floor * 100 / heapMinimum)
	if ceiling <= base {
		return base
	}
	if live == 0 {
		return ceiling
	}
	p := floor * 100 / live
	if p <= 100+uint64(base) {
		return base
	}
	return min(int(p)-100, ceiling)
}

// readPercent returns the GOGC in effect.
func readPercent() int {
	s := []metrics.Sample{{Name: gogcMetric}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
