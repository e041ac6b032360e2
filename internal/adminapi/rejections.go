package adminapi

import (
	"context"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// rejections answers GET /api/v1/rejections?source=&since=&limit=: the
// newest requests that failed verification.
func (h *handler) rejections(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := checkQuery(q, "source", "since", "limit"); err != nil {
		h.fail(w, r, err)
		return
	}
	since, limit, err := sinceAndLimit(q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out, err := h.Rejections(r.Context(), q.Get("source"), since, limit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Rejections returns up to limit rejection records of source (every source
// when empty) from since on (all kept when zero), newest first. The record
// is bounded by ingest.rejections_keep, so it is read whole and filtered
// here.
func (s *Service) Rejections(ctx context.Context, source string, since time.Time, limit int) (adminwire.Rejections, error) {
	rs, err := s.store.Rejections(ctx, max(s.cfg.Ingest.RejectionsKeep, limit))
	if err != nil {
		return adminwire.Rejections{}, err
	}
	out := adminwire.Rejections{Rejections: []adminwire.Rejection{}}
	for _, rj := range rs {
		if len(out.Rejections) == limit {
			break
		}
		if source != "" && rj.Source != source || rj.At.Before(since) {
			continue
		}
		row := adminwire.Rejection{At: rj.At.UTC(), Source: rj.Source, Reason: rj.Reason, RemoteAddr: rj.RemoteAddr, BodySize: rj.BodySize}
		if rj.HasSkew {
			skew := roundMS(rj.Skew.Seconds())
			row.SkewSeconds = &skew
		}
		out.Rejections = append(out.Rejections, row)
	}
	return out, nil
}
