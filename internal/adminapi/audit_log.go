package adminapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// auditLog answers GET /api/v1/audit?since=&limit=: replays, backfills,
// purges, pauses, resumes, skips and job takeovers, newest first.
func (h *handler) auditLog(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := checkQuery(q, "since", "limit"); err != nil {
		h.fail(w, r, err)
		return
	}
	since, limit, err := sinceAndLimit(q)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out, err := h.AuditLog(r.Context(), since, limit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// AuditLog returns up to limit rows of the audit log from since on, newest
// first.
func (s *Service) AuditLog(ctx context.Context, since time.Time, limit int) (adminwire.AuditLog, error) {
	es, err := s.store.AuditLog(ctx, since, limit)
	if err != nil {
		return adminwire.AuditLog{}, err
	}
	out := adminwire.AuditLog{Entries: make([]adminwire.AuditEntry, len(es))}
	for i, e := range es {
		var detail map[string]any
		_ = json.Unmarshal([]byte(e.Detail), &detail) // written by the store as an object
		out.Entries[i] = adminwire.AuditEntry{
			ID: e.ID, At: e.At.UTC(), Actor: e.Actor, Kind: e.Kind, Detail: detail,
			Matched: e.Matched, Rearmed: e.Rearmed, InFlight: e.InFlight, Created: e.Created, Purged: e.Purged, DryRun: e.DryRun,
		}
	}
	return out, nil
}
