package adminapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/bodyfield"
	"github.com/hookrelay/hookrelay/internal/store"
)

// purgeScanPage is how many events a path selector reads the bodies of at
// once: memory stays bounded whatever the window.
const purgeScanPage = 200

// purgeSelector checks req and returns its selector. The messages never
// quote the value looked for.
func (s *Service) purgeSelector(req adminwire.PurgeRequest) (purgeSelector, error) {
	reason := strings.TrimSpace(req.Reason)
	switch {
	case reason == "":
		return purgeSelector{}, badRequest("reason: say why these events are purged (it is kept with each tombstone and in the audit log)")
	case len(reason) > maxPurgeReason || !store.StorableText(reason, maxPurgeReason):
		return purgeSelector{}, badRequest("reason: at most %d bytes of text", maxPurgeReason)
	}
	sel := purgeSelector{ids: req.IDs, source: req.Source, providerEventID: req.ProviderEventID, path: req.Path, value: req.Value}
	kinds := 0
	for _, set := range []bool{len(req.IDs) > 0, req.ProviderEventID != "", req.Path != "" || req.Value != ""} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return sel, badRequest("choose one selector: ids; source and provider_event_id; or path and value (with source, since, until)")
	}
	switch {
	case len(req.IDs) > 0:
		if req.Source != "" || req.Since != "" || req.Until != "" {
			return sel, badRequest("ids select events by themselves: leave out source, since and until")
		}
		if len(req.IDs) > maxReplayIDs {
			return sel, badRequest("ids: %d given, at most %d at once", len(req.IDs), maxReplayIDs)
		}
		if slices.Contains(req.IDs, "") {
			return sel, badRequest("ids: an id is empty")
		}
	case req.ProviderEventID != "":
		if req.Source == "" {
			return sel, badRequest("provider_event_id: name its source too")
		}
		if req.Since != "" || req.Until != "" {
			return sel, badRequest("a provider event id selects one event: leave out since and until")
		}
	default:
		if req.Path == "" || req.Value == "" {
			return sel, badRequest("path and value go together: the events whose JSON body has value at path")
		}
		if err := bodyfield.Valid(req.Path); err != nil {
			return sel, badRequest("path: %v", err)
		}
		f, err := toFilter(adminwire.Filter{Since: req.Since, Until: req.Until})
		if err != nil {
			return sel, err
		}
		sel.since, sel.until = f.Since, f.Until
	}
	return sel, nil
}

// purgeRun is one purge under way: what it asks of the store, and what it
// did so far.
type purgeRun struct {
	s      *Service
	req    store.PurgeRequest
	dryRun bool
	res    adminwire.PurgeResult
}

// run selects the events and purges them, batch by batch.
func (p *purgeRun) run(ctx context.Context, sel purgeSelector) error {
	switch {
	case sel.path != "":
		return p.scan(ctx, sel)
	case sel.providerEventID != "":
		ev, err := p.s.store.EventByProviderID(ctx, sel.source, sel.providerEventID)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("no event %q of source %q: nothing was purged", sel.providerEventID, sel.source)
		}
		if err != nil {
			return fmt.Errorf("look up provider event id: %w", err)
		}
		return p.named(ctx, []string{ev.ID})
	}
	if err := p.s.checkIDsExist(ctx, sel.ids, "purged"); err != nil {
		return err
	}
	return p.named(ctx, sel.ids)
}

// named purges events named by id, all of which exist; those purged
// before are counted apart.
func (p *purgeRun) named(ctx context.Context, ids []string) error {
	ids = uniq(ids)
	for chunk := range slices.Chunk(ids, store.MaxPurgeBatch) {
		ts, err := p.s.store.Tombstones(ctx, chunk)
		if err != nil {
			return fmt.Errorf("read tombstones: %w", err)
		}
		live := slices.DeleteFunc(slices.Clone(chunk), func(id string) bool { _, gone := ts[id]; return gone })
		p.res.AlreadyPurged += int64(len(chunk) - len(live))
		if err := p.purge(ctx, live); err != nil {
			return err
		}
	}
	return nil
}

// scan reads the bodies of the events of the window, a page at a time,
// newest first, and purges those whose body has sel.value at sel.path. The
// bodies are read as the store returns them, so the comparison holds
// whatever the store keeps on disk; a purged event's empty body never
// matches.
func (p *purgeRun) scan(ctx context.Context, sel purgeSelector) error {
	filter := store.EventFilter{Source: sel.source, Since: sel.since, Until: sel.until}
	cursor := ""
	for {
		page, next, err := p.s.store.ListEvents(ctx, store.ListRequest{Filter: filter, Cursor: cursor, Limit: purgeScanPage})
		if err != nil {
			return fmt.Errorf("list events to purge: %w", err)
		}
		ids := make([]string, len(page))
		for i, e := range page {
			ids[i] = e.Event.ID
		}
		bodies, err := p.s.store.EventBodies(ctx, ids)
		if err != nil {
			return fmt.Errorf("read bodies to purge: %w", err)
		}
		var match []string
		for _, id := range ids {
			if v, ok := bodyfield.Lookup(bodies[id], sel.path); ok && v == sel.value {
				match = append(match, id)
			}
		}
		p.res.Scanned += int64(len(ids))
		if err := p.purge(ctx, match); err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
}

// purge counts ids, events not purged yet, and unless this is a dry run
// purges them.
func (p *purgeRun) purge(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("purge: %w", err)
	}
	if p.dryRun {
		p.res.Matched += int64(len(ids))
		return nil
	}
	req := p.req
	req.IDs = ids
	res, err := p.s.store.PurgeEvents(ctx, req)
	if err != nil {
		return fmt.Errorf("purge: %w", err)
	}
	// An event purged by another call meanwhile is neither matched nor
	// purged here.
	p.res.Matched += int64(len(res.Purged))
	p.res.Purged += int64(len(res.Purged))
	p.res.DeliveriesEnded += res.Ended
	return nil
}

// uniq returns ids without repeats, in their first order.
func uniq(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
