package adminapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// maxPurgeReason bounds a purge's reason, kept with every tombstone.
const maxPurgeReason = 500

// purge answers POST /api/v1/purge: it erases the payload of the events a
// selector selects, or on a dry run only counts them.
func (h *handler) purge(w http.ResponseWriter, r *http.Request) {
	var req adminwire.PurgeRequest
	if err := decodeBody(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	res, err := h.Purge(r.Context(), tokenFrom(r.Context()).Name, req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// Purge erases the payload (body, headers, response snippets, ordering
// keys) of the events req selects, keeping each one's ids and times with a
// tombstone that names actor and req.Reason, and ends their live
// deliveries as purged; on a dry run it only counts them. It works in
// batches of one transaction each, and writes one audit row, also for a dry
// run or when it stops part way (the result so far is then returned with
// the error). Once events are purged, the bytes are cleared from the
// database's files as far as the store can (store.Erasure.ClearErased),
// and the result names the statement that clears the rest. The value a
// path selector looks for is never logged nor recorded: the audit row
// keeps its HMAC-SHA-256 under the database's audit key, which no API
// returns.
func (s *Service) Purge(ctx context.Context, actor string, req adminwire.PurgeRequest) (adminwire.PurgeResult, error) {
	sel, err := s.purgeSelector(req)
	if err != nil {
		return adminwire.PurgeResult{}, err
	}
	var key []byte
	if sel.path != "" {
		// Read before anything is purged: a purge that could not be
		// audited is not started.
		if key, err = s.store.AuditKey(ctx); err != nil {
			return adminwire.PurgeResult{}, fmt.Errorf("read audit key: %w", err)
		}
	}
	audit(ctx, "selector", sel.kind(), "dry_run", req.DryRun)
	p := &purgeRun{s: s, req: store.PurgeRequest{Actor: actor, Reason: strings.TrimSpace(req.Reason), Now: s.now()}, dryRun: req.DryRun}
	p.res.DryRun = req.DryRun
	runErr := p.run(ctx, sel)
	if p.res.Purged > 0 {
		followUp, err := s.store.ClearErased(context.WithoutCancel(ctx))
		p.res.FollowUpSQL = followUp
		if err != nil && runErr == nil {
			runErr = fmt.Errorf("clear erased bytes: %w", err)
		}
	}
	a := store.PurgeAudit{
		Actor: actor, Selector: sel.auditSelector(key), Reason: p.req.Reason,
		Matched: p.res.Matched, Purged: p.res.Purged, DryRun: req.DryRun, Now: p.req.Now,
	}
	// The audit row is written even when ctx ended part way.
	if err := s.store.RecordPurge(context.WithoutCancel(ctx), a); err != nil && runErr == nil {
		runErr = fmt.Errorf("record purge: %w", err)
	}
	audit(ctx, "matched", p.res.Matched, "purged", p.res.Purged, "deliveries_ended", p.res.DeliveriesEnded)
	return p.res, runErr
}

// purgeSelector is a checked purge request's selector: exactly one of ids,
// a provider event id, or a path and value.
type purgeSelector struct {
	ids             []string
	source          string
	providerEventID string
	path, value     string
	since, until    time.Time
}

func (sel purgeSelector) kind() string {
	switch {
	case sel.path != "":
		return "path"
	case sel.providerEventID != "":
		return "provider_event_id"
	}
	return "ids"
}

// auditSelector is sel as the audit row records it: the value hashed
// under the database's audit key.
func (sel purgeSelector) auditSelector(key []byte) store.PurgeSelector {
	out := store.PurgeSelector{
		IDs: sel.ids, Source: sel.source, ProviderEventID: sel.providerEventID,
		Path: sel.path, Since: sel.since, Until: sel.until,
	}
	if sel.path != "" {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(sel.value))
		out.ValueHMAC = hex.EncodeToString(mac.Sum(nil))
	}
	return out
}
