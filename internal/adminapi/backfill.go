package adminapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/route"
	"github.com/hookrelay/hookrelay/internal/store"
)

// backfillPage is how many candidate events one store call reads.
const backfillPage = 1000

// backfill answers POST /api/v1/backfill.
func (h *handler) backfill(w http.ResponseWriter, r *http.Request) {
	var req adminwire.BackfillRequest
	if err := decodeBody(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	res, err := h.Backfill(r.Context(), tokenFrom(r.Context()).Name, req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// Backfill gives a destination the delivery rows it lacks for the events
// of a window it would have received had it been configured then, or on a
// dry run only counts them; actor names who asked, for the audit row. A
// second run finds nothing left to create.
func (s *Service) Backfill(ctx context.Context, actor string, req adminwire.BackfillRequest) (adminwire.BackfillResult, error) {
	b, err := s.backfillOf(req)
	if err != nil {
		return adminwire.BackfillResult{}, err
	}
	audit(ctx, keyDestination, b.dest.Name, "since", req.Since, "until", req.Until, "dry_run", req.DryRun)
	res, err := s.runBackfill(ctx, actor, b, req.DryRun, backfillWalk{})
	audit(ctx, "matched", res.Matched, "created", res.Created)
	return res, err
}

// backfillRun is a checked backfill: the destination and its window.
type backfillRun struct {
	dest         *config.Destination
	since, until time.Time
}

// backfillOf checks a backfill request.
func (s *Service) backfillOf(req adminwire.BackfillRequest) (backfillRun, error) {
	if req.Destination == "" || req.Since == "" || req.Until == "" {
		return backfillRun{}, badRequest("backfill needs destination, since and until")
	}
	window, err := toFilter(adminwire.Filter{Since: req.Since, Until: req.Until})
	if err != nil {
		return backfillRun{}, err
	}
	dest, ok := s.cfg.Destination(req.Destination)
	if !ok {
		return backfillRun{}, notFound("%s", config.UnknownName("destination", req.Destination, s.cfg.DestinationNames()))
	}
	return backfillRun{dest: dest, since: window.Since, until: window.Until}, nil
}

// runBackfill creates the rows b lacks (or counts them on a dry run),
// walking as w says, and writes the audit row, also for a run cut short
// or stopped: what it created stays created. A job's walk that does not
// end here writes no audit row — another node took the job over, or the
// walk's context ended and another node will — the node that ends the
// job writes it.
func (s *Service) runBackfill(ctx context.Context, actor string, b backfillRun, dryRun bool, w backfillWalk) (adminwire.BackfillResult, error) {
	now := s.now()
	res, err := s.createMissing(ctx, b.dest, b.since, b.until, dryRun, now, w)
	if errors.Is(err, store.ErrJobTaken) || (w.job != nil && ctx.Err() != nil) {
		return res, fmt.Errorf("backfill %s: %w", b.dest.Name, err)
	}
	recErr := s.store.RecordBackfill(context.WithoutCancel(ctx), actor, b.dest.Name, b.since, b.until, res.Created, dryRun, now)
	if res.Created > 0 {
		s.wake(b.dest.Name)
	}
	if err = errors.Join(err, recErr); err != nil {
		return res, fmt.Errorf("backfill %s: %w", b.dest.Name, err)
	}
	return res, nil
}

// Fill gives dest the delivery rows it lacks for the events received in
// [since, until), as a backfill does, and returns how many it created;
// it writes no audit row and wakes nothing: it is the relay's own
// backfill of a handler destination it registered, run again and again.
func (s *Service) Fill(ctx context.Context, dest *config.Destination, since, until time.Time) (int64, error) {
	res, err := s.createMissing(ctx, dest, since, until, false, s.now(), backfillWalk{})
	if err != nil {
		return res.Created, fmt.Errorf("fill %s: %w", dest.Name, err)
	}
	return res.Created, nil
}

// pageProgress is told what a backfill did so far after each page, and
// the id of the last event it walked (it walks in id order); an error
// stops the walk there.
type pageProgress func(done adminwire.BackfillResult, lastEventID string) error

// backfillWalk is where a backfill's walk starts and what it tells: it
// goes on after the event id after (empty for the start), counting from
// done; with job, each page commits with the job's progress (see
// store.Operations.CreateJobDeliveries); progress, when set, is told after
// each page and may stop the walk.
type backfillWalk struct {
	after    string
	done     adminwire.BackfillResult
	job      *job
	progress pageProgress
}

// createMissing walks the window's candidate events page by page, in id
// order, as w says, routes each through the destination's own
// subscription, and creates the rows of those it wants, unless dryRun. A
// job's walk stops after the page that finds the job cancelled, with
// store.ErrJobCancelled.
func (s *Service) createMissing(ctx context.Context, dest *config.Destination, since, until time.Time, dryRun bool, now time.Time, w backfillWalk) (adminwire.BackfillResult, error) {
	res := w.done
	res.DryRun = dryRun
	router, err := route.New([]route.Destination{{Name: dest.Name, Sources: dest.Sources, Types: dest.Types, OrderingKey: dest.OrderingKey}})
	if err != nil {
		return res, fmt.Errorf("build router: %w", err)
	}
	needKeys := dest.OrderingKey != "" && !dryRun
	after := w.after
	for {
		events, err := s.store.BackfillCandidates(ctx, dest.Name, dest.Sources, since, until, after, backfillPage)
		if err != nil {
			return res, fmt.Errorf("read candidates: %w", err)
		}
		if len(events) == 0 {
			return res, nil
		}
		page, err := s.routeCandidates(ctx, router, events, needKeys)
		if err != nil {
			return res, err
		}
		res.Matched += int64(len(page))
		after = events[len(events)-1].Event.ID
		cancelledBy, err := s.createPage(ctx, page, now, dryRun, w.job, &res, after)
		if err != nil {
			return res, err
		}
		if w.progress != nil {
			if err := w.progress(res, after); err != nil {
				return res, err
			}
		}
		if cancelledBy != "" {
			return res, fmt.Errorf("%w by %s", store.ErrJobCancelled, cancelledBy)
		}
		if len(events) < backfillPage {
			return res, nil
		}
	}
}

// createPage creates the deliveries of a page of a backfill, unless
// dryRun, counting them into res. With j, the page commits with j's
// progress — its walk having reached the event id last — and it returns
// who asked j to stop, if anyone did.
func (s *Service) createPage(ctx context.Context, page []store.BackfillDelivery, now time.Time, dryRun bool, j *job, res *adminwire.BackfillResult, last string) (string, error) {
	var (
		n   int64
		by  string
		err error
	)
	switch {
	case dryRun:
		return "", nil
	case j != nil:
		n, by, err = s.store.CreateJobDeliveries(ctx, page, now, j.tie(), func(created int64) store.JobProgress {
			done := *res
			done.Created += created
			return store.JobProgress{Done: done.Matched, LastEventID: last, Result: resultOf(adminwire.Job{Backfill: &done})}
		})
	case len(page) > 0:
		n, err = s.store.CreateDeliveries(ctx, page, now)
	}
	res.Created += n
	if err != nil {
		return "", fmt.Errorf("create deliveries: %w", err)
	}
	return by, nil
}

// backfillBodyBytes bounds the bodies one read of a backfill holds (one
// body larger than that is read alone).
const backfillBodyBytes = 4 << 20

// routeCandidates returns the deliveries router gives events. Routing
// needs an event's source and type alone, so no body is read unless
// needKeys: then the bodies of the events the destination wants are read,
// at most backfillBodyBytes at a time, for their ordering keys. An event
// pruned meanwhile is left out.
func (s *Service) routeCandidates(ctx context.Context, router *route.Router, events []store.EventSummary, needKeys bool) ([]store.BackfillDelivery, error) {
	var (
		page   []store.BackfillDelivery
		wanted []store.EventSummary
	)
	for _, ev := range events {
		for _, nd := range router.Route(ev.Event.Source, ev.Event.Type, nil) {
			if needKeys {
				wanted = append(wanted, ev)
				continue
			}
			page = append(page, store.BackfillDelivery{EventID: ev.Event.ID, Destination: nd.Destination})
		}
	}
	for len(wanted) > 0 {
		n, size := 1, wanted[0].BodySize
		for n < len(wanted) && size+wanted[n].BodySize <= backfillBodyBytes {
			size += wanted[n].BodySize
			n++
		}
		chunk := wanted[:n]
		wanted = wanted[n:]
		ids := make([]string, len(chunk))
		for i, ev := range chunk {
			ids[i] = ev.Event.ID
		}
		bodies, err := s.store.EventBodies(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("read bodies: %w", err)
		}
		for _, ev := range chunk {
			body, ok := bodies[ev.Event.ID]
			if !ok {
				continue
			}
			for _, nd := range router.Route(ev.Event.Source, ev.Event.Type, body) {
				page = append(page, store.BackfillDelivery{EventID: ev.Event.ID, Destination: nd.Destination, OrderingKey: nd.OrderingKey})
			}
		}
	}
	return page, nil
}
