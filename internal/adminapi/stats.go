package adminapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/fleet"
	"github.com/hookrelay/hookrelay/internal/store"
)

// stats answers GET /api/v1/stats.
func (h *handler) stats(w http.ResponseWriter, r *http.Request) {
	out, err := h.Stats(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Stats returns every configured destination's deliveries by status and
// the age of its oldest due one, and every configured source's ingest
// counts, zeros included. Names the store knows but the config no longer
// lists are reported too.
func (s *Service) Stats(ctx context.Context) (adminwire.Stats, error) {
	st, err := s.store.Stats(ctx, s.now())
	if err != nil {
		return adminwire.Stats{}, err
	}
	out := adminwire.Stats{Destinations: map[string]adminwire.DestinationStats{}, Sources: map[string]adminwire.SourceStats{}, Paused: map[string]adminwire.PausedStats{}}
	for _, d := range s.cfg.Destinations {
		out.Destinations[d.Name] = adminwire.DestinationStats{}
	}
	for _, src := range s.cfg.Sources {
		out.Sources[src.Name] = adminwire.SourceStats{}
	}
	for name, d := range st.Destinations {
		out.Destinations[name] = destinationStats(d)
	}
	for name, src := range st.Sources {
		out.Sources[name] = adminwire.SourceStats{Received: src.Received, Duplicates: src.Duplicates, Rejected: src.Rejected}
	}
	if err := s.addProviderLag(ctx, out.Sources); err != nil {
		return adminwire.Stats{}, err
	}
	paused, err := s.store.Paused(ctx)
	if err != nil {
		return adminwire.Stats{}, err
	}
	for name, at := range paused {
		out.Paused[name] = adminwire.PausedStats{PausedForSeconds: roundMS(s.now().Sub(at).Seconds())}
	}
	if out.Runner, err = s.runner(ctx); err != nil {
		return adminwire.Stats{}, err
	}
	return out, nil
}

// runner returns the fleet's runner, or nil while none holds the lease.
func (s *Service) runner(ctx context.Context) (*adminwire.RunnerStats, error) {
	l, err := s.store.ReadFleetLease(ctx, fleet.RunnerLease)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case !l.HeldBy(l.Holder):
		return nil, nil // run out
	}
	return &adminwire.RunnerStats{Node: l.Holder, ForSeconds: roundMS(l.Now.Sub(l.Since).Seconds())}, nil
}

func destinationStats(d store.DestinationStats) adminwire.DestinationStats {
	return adminwire.DestinationStats{
		Pending:                 d.Counts[store.StatusPending],
		Processing:              d.Counts[store.StatusProcessing],
		Failed:                  d.Counts[store.StatusFailed],
		Done:                    d.Counts[store.StatusDone],
		Skipped:                 d.Counts[store.StatusSkipped],
		Dead:                    d.Counts[store.StatusDead],
		Purged:                  d.Counts[store.StatusPurged],
		OldestPendingAgeSeconds: roundMS(d.OldestPendingAge.Seconds()),
	}
}
