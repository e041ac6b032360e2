package adminapi

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/failure"
	"github.com/hookrelay/hookrelay/internal/store"
)

// failures answers GET /api/v1/failures?destination=: the failed and dead
// deliveries grouped by destination, status and kind of failure.
func (h *handler) failures(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := checkQuery(q, "destination"); err != nil {
		h.fail(w, r, err)
		return
	}
	out, err := h.Failures(r.Context(), q.Get("destination"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Failures returns the failed and dead deliveries of destination (every
// destination when empty) grouped by destination, status and kind, the
// group last seen latest first. A destination the config does not have is
// not found. A handler destination's error is its code's own text, so
// what no rule recognises in it is filed under the handler kind.
func (s *Service) Failures(ctx context.Context, destination string) (adminwire.Failures, error) {
	if destination != "" {
		if _, ok := s.cfg.Destination(destination); !ok {
			return adminwire.Failures{}, notFound("%s", config.UnknownName("destination", destination, s.cfg.DestinationNames()))
		}
	}
	gs, err := s.store.Failures(ctx, store.FailuresRequest{Destination: destination})
	if err != nil {
		return adminwire.Failures{}, err
	}
	var merged []store.FailureGroup
	for _, g := range gs {
		if d, ok := s.cfg.Destination(g.Destination); ok && d.Handler {
			g.Kind = failure.OfHandler(g.Kind)
		}
		merged = mergeFailure(merged, g)
	}
	slices.SortStableFunc(merged, func(a, b store.FailureGroup) int {
		if c := b.LastSeen.Compare(a.LastSeen); c != 0 {
			return c
		}
		return cmp.Compare(b.Count, a.Count)
	})
	out := adminwire.Failures{Groups: make([]adminwire.FailureGroup, len(merged))}
	for i, g := range merged {
		out.Groups[i] = adminwire.FailureGroupOf(g, string(g.Kind))
	}
	return out, nil
}

// mergeFailure adds g to gs, into the group of its destination, status
// and kind when gs has one (two kinds the store told apart may be one for
// a handler destination): counts add up, times and windows widen, and the
// example is the newer event's.
func mergeFailure(gs []store.FailureGroup, g store.FailureGroup) []store.FailureGroup {
	i := slices.IndexFunc(gs, func(x store.FailureGroup) bool {
		return x.Destination == g.Destination && x.Status == g.Status && x.Kind == g.Kind
	})
	if i < 0 {
		return append(gs, g)
	}
	m := &gs[i]
	m.Count += g.Count
	if g.FirstSeen.Before(m.FirstSeen) {
		m.FirstSeen = g.FirstSeen
	}
	if g.LastSeen.After(m.LastSeen) {
		m.LastSeen = g.LastSeen
	}
	switch {
	case m.ReceivedSince.IsZero() || g.ReceivedSince.IsZero():
		m.ReceivedSince, m.ReceivedUntil = time.Time{}, time.Time{} // one window is unknown, so the whole is
	default:
		if g.ReceivedSince.Before(m.ReceivedSince) {
			m.ReceivedSince = g.ReceivedSince
		}
		if g.ReceivedUntil.After(m.ReceivedUntil) {
			m.ReceivedUntil = g.ReceivedUntil
		}
	}
	if g.ExampleEventID > m.ExampleEventID {
		m.ExampleEventID, m.ExampleError, m.ExampleStatusCode = g.ExampleEventID, g.ExampleError, g.ExampleStatusCode
	}
	return gs
}
