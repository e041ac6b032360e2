package providersim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Figures are the counts a run is judged by. Lost must be 0.
type Figures struct {
	// Sent counts the distinct events the simulator started.
	Sent int
	// Acked counts the events answered 2xx.
	Acked int
	// Stored counts the sent events found in the store, each once.
	Stored int
	// Delivered counts the stored events the destination received with a
	// valid signature, at least once.
	Delivered int
	// Duplicates counts the receptions beyond the first of each event.
	Duplicates int
	// Lost counts the events acknowledged but not stored, plus the events
	// stored but never delivered.
	Lost int
}

// String formats the figures as key=value pairs, the form RELIABILITY.md
// copies.
func (f Figures) String() string {
	return fmt.Sprintf("sent=%d acknowledged=%d stored=%d delivered=%d duplicates=%d lost=%d",
		f.Sent, f.Acked, f.Stored, f.Delivered, f.Duplicates, f.Lost)
}

// Ledger checks a run against the promise: every acknowledged event is
// stored exactly once, and every stored event reaches the destination at
// least once. Problems lists every breach found, one sentence each.
type Ledger struct {
	Figures
	Problems []string
	// ids maps each stored event's hookrelay id, the webhook-id its
	// destination receives, to its provider id.
	ids map[string]string
}

// CheckStored looks up every event of rep in st under source and starts a
// ledger. It checks that each acknowledged event is stored with its body
// byte for byte, and that st holds no row beyond them: CountEvents must be
// baseline (what the source held before the run) plus the events found.
// The error reports a store that could not be read.
func CheckStored(ctx context.Context, st store.Store, source string, rep Report, baseline int64) (*Ledger, error) {
	l := &Ledger{Figures: Figures{Sent: rep.Sent()}, ids: map[string]string{}}
	for _, e := range rep.Events {
		if e.Acked {
			l.Acked++
		}
		ev, err := st.EventByProviderID(ctx, source, e.ID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			if e.Acked {
				l.Lost++
				l.problem("LOST: event %s was acknowledged at %s but is not stored", e.ID, e.AckedAt.Format(time.RFC3339Nano))
			}
			continue
		case err != nil:
			return l, fmt.Errorf("look up event %s: %w", e.ID, err)
		}
		if !bytes.Equal(ev.Body, e.Body) {
			l.problem("event %s is stored as %q but was sent as %q", e.ID, ev.Body, e.Body)
		}
		if other, dup := l.ids[ev.ID]; dup {
			l.problem("hookrelay id %s is stored for both %s and %s", ev.ID, other, e.ID)
		}
		l.ids[ev.ID] = e.ID
		l.Stored++
	}
	n, err := st.CountEvents(ctx, source)
	if err != nil {
		return l, fmt.Errorf("count events: %w", err)
	}
	if n != baseline+int64(l.Stored) {
		l.problem("the store holds %d events of %s where %d were there before and %d distinct events were found: some event is stored more than once",
			n, source, baseline, l.Stored)
	}
	return l, nil
}

func (l *Ledger) problem(format string, args ...any) {
	l.Problems = append(l.Problems, fmt.Sprintf(format, args...))
}

// Undelivered counts the stored events the destination has not received.
func (l *Ledger) Undelivered(dest *Destination) int {
	counts := dest.Counts()
	n := 0
	for id := range l.ids {
		if counts[id] == 0 {
			n++
		}
	}
	return n
}

// WaitDrained waits until the destination has received every stored event
// and ops holds no live delivery (pending, processing or failed) for
// destination and a finished one for each stored event, or until ctx is
// done. It returns the destination's last statistics. (A delivery leased
// at ingest may have no row until its outcome is recorded, or, when its
// holder died, until its lease has run out: store.Lease.Deferred.)
func (l *Ledger) WaitDrained(ctx context.Context, ops store.Operations, destination string, dest *Destination) (store.DestinationStats, error) {
	for {
		s, err := ops.Stats(ctx, time.Now())
		if err != nil {
			return store.DestinationStats{}, fmt.Errorf("wait for the drain: %w", err)
		}
		ds := s.Destinations[destination]
		if l.Undelivered(dest) == 0 && Live(ds) == 0 && Finished(ds) >= int64(l.Stored) {
			return ds, nil
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ds, nil
		case <-t.C:
		}
	}
}

// Finished counts a destination's deliveries that are final.
func Finished(ds store.DestinationStats) int64 {
	c := ds.Counts
	return c[store.StatusDone] + c[store.StatusSkipped] + c[store.StatusDead] + c[store.StatusPurged]
}

// Live counts a destination's deliveries that are not final.
func Live(ds store.DestinationStats) int64 {
	c := ds.Counts
	return c[store.StatusPending] + c[store.StatusProcessing] + c[store.StatusFailed]
}

// CheckDelivered counts what the destination received of the stored
// events: delivered, duplicates, and as lost every stored event it never
// received. It also reports receptions with an invalid signature and
// events received that are not stored events of this run.
func (l *Ledger) CheckDelivered(dest *Destination) {
	counts := dest.Counts()
	l.Delivered, l.Duplicates = 0, 0
	for id, pid := range l.ids {
		n := counts[id]
		if n == 0 {
			l.Lost++
			l.problem("LOST: stored event %s (%s) never reached the destination", id, pid)
			continue
		}
		l.Delivered++
		l.Duplicates += n - 1
	}
	for id := range counts {
		if _, ok := l.ids[id]; !ok {
			l.problem("the destination received %s, which is not a stored event of this run", id)
		}
	}
	if n := dest.Invalid(); n > 0 {
		l.problem("%d deliveries had an invalid signature", n)
	}
}

// StoredIDs returns the hookrelay ids of the stored events.
func (l *Ledger) StoredIDs() []string {
	ids := make([]string, 0, len(l.ids))
	for id := range l.ids {
		ids = append(ids, id)
	}
	return ids
}
