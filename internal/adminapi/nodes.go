package adminapi

import (
	"context"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// nodes answers GET /api/v1/nodes.
func (h *handler) nodes(w http.ResponseWriter, r *http.Request) {
	out, err := h.Nodes(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Nodes returns the relay processes on the database that reported
// themselves lately, and whether they disagree on their configuration.
func (s *Service) Nodes(ctx context.Context) (adminwire.Nodes, error) {
	nodes, err := s.store.Nodes(ctx, s.now().Add(-store.NodeGone), time.Time{})
	if err != nil {
		return adminwire.Nodes{}, err
	}
	out := adminwire.Nodes{Nodes: make([]adminwire.NodeStats, len(nodes)), ConfigDrift: store.DistinctFingerprints(nodes) > 1}
	for i, n := range nodes {
		out.Nodes[i] = adminwire.NodeStats{ID: n.ID, Version: n.Version, ConfigFingerprint: n.ConfigFingerprint, StartedAt: n.StartedAt, SeenAt: n.SeenAt}
	}
	return out, nil
}
