package receiver

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// sourceTally counts one source's ingest outcomes since the last flush.
type sourceTally struct {
	received, duplicates, rejected atomic.Int64
}

// Tally counts ingest outcomes per source in memory and adds them to the
// store's counters every second, so that stats are shared by every receiver
// without a hot counter row inside each ingest transaction. A crash loses at
// most the last second of counts, never an event.
type Tally struct {
	store   store.Operations
	logger  *slog.Logger
	sources map[string]*sourceTally // fixed at construction
	loop    *flushLoop
}

// NewTally starts a Tally for the named sources. Call Close to flush and
// stop it.
func NewTally(st store.Operations, sources []string, logger *slog.Logger) *Tally {
	t := &Tally{
		store:   st,
		logger:  logger.With("component", "tally"),
		sources: make(map[string]*sourceTally, len(sources)),
	}
	for _, s := range sources {
		t.sources[s] = &sourceTally{}
	}
	t.loop = startFlushLoop(t.flush)
	return t
}

// count records one outcome; unknown sources are not counted.
func (t *Tally) count(source string, pick func(*sourceTally) *atomic.Int64) {
	if t == nil {
		return
	}
	if st, ok := t.sources[source]; ok {
		pick(st).Add(1)
	}
}

func received(s *sourceTally) *atomic.Int64   { return &s.received }
func duplicates(s *sourceTally) *atomic.Int64 { return &s.duplicates }
func rejected(s *sourceTally) *atomic.Int64   { return &s.rejected }

// Close writes the last counts and stops the Tally. Closing twice is a
// no-op.
func (t *Tally) Close() { t.loop.close() }

// flush moves the counts to the store; counts it could not write are put
// back for the next flush.
func (t *Tally) flush() {
	counts := make(map[string]store.SourceStats)
	for name, st := range t.sources {
		c := store.SourceStats{Received: st.received.Swap(0), Duplicates: st.duplicates.Swap(0), Rejected: st.rejected.Swap(0)}
		if c != (store.SourceStats{}) {
			counts[name] = c
		}
	}
	if len(counts) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.store.CountIngest(ctx, counts); err != nil {
		t.logger.Warn("write ingest counts", "error", err)
		for name, c := range counts {
			st := t.sources[name]
			st.received.Add(c.Received)
			st.duplicates.Add(c.Duplicates)
			st.rejected.Add(c.Rejected)
		}
	}
}
