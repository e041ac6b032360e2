package adminapi

import (
	"math"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/store"
)

// stats answers GET /api/v1/stats: every configured destination's
// deliveries by status and the age of its oldest due one, and every
// configured source's ingest counts, zeros included. Names the store knows
// but the config no longer lists are reported too.
func (h *handler) stats(w http.ResponseWriter, r *http.Request) {
	if h.ops == nil {
		h.fail(w, r, errNoOperations)
		return
	}
	s, err := h.ops.Stats(r.Context(), h.now())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := Stats{Destinations: map[string]DestinationStats{}, Sources: map[string]SourceStats{}}
	for _, d := range h.cfg.Destinations {
		out.Destinations[d.Name] = DestinationStats{}
	}
	for _, src := range h.cfg.Sources {
		out.Sources[src.Name] = SourceStats{}
	}
	for name, d := range s.Destinations {
		out.Destinations[name] = destinationStats(d)
	}
	for name, src := range s.Sources {
		out.Sources[name] = SourceStats{Received: src.Received, Duplicates: src.Duplicates, Rejected: src.Rejected}
	}
	writeJSON(w, http.StatusOK, out)
}

func destinationStats(d store.DestinationStats) DestinationStats {
	return DestinationStats{
		Pending:                 d.Counts[store.StatusPending],
		Processing:              d.Counts[store.StatusProcessing],
		Failed:                  d.Counts[store.StatusFailed],
		Done:                    d.Counts[store.StatusDone],
		Skipped:                 d.Counts[store.StatusSkipped],
		Dead:                    d.Counts[store.StatusDead],
		OldestPendingAgeSeconds: math.Round(d.OldestPendingAge.Seconds()*1000) / 1000,
	}
}
