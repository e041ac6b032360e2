package adminapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// listDestinations answers GET /api/v1/destinations: every configured
// destination with its kind, URL, backlog, dead count, last error and
// whether it is paused.
func (h *handler) listDestinations(w http.ResponseWriter, r *http.Request) {
	out, err := h.Destinations(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Destinations returns every configured destination, in config order,
// with what an operator looks at first in an incident.
func (s *Service) Destinations(ctx context.Context) (adminwire.Destinations, error) {
	st, err := s.store.Stats(ctx, s.now())
	if err != nil {
		return adminwire.Destinations{}, err
	}
	paused, err := s.store.Paused(ctx)
	if err != nil {
		return adminwire.Destinations{}, err
	}
	out := adminwire.Destinations{Destinations: make([]adminwire.Destination, 0, len(s.cfg.Destinations))}
	for _, d := range s.cfg.Destinations {
		row := adminwire.Destination{Name: d.Name, Kind: d.Kind()}
		if row.Kind == "push" {
			row.URL = displayURL(d.URL)
		}
		ds := destinationStats(st.Destinations[d.Name])
		row.Backlog = ds.Pending + ds.Failed + ds.Processing
		row.OldestPendingAgeSeconds, row.Dead = ds.OldestPendingAgeSeconds, ds.Dead
		if at, ok := paused[d.Name]; ok {
			row.Paused, row.PausedAt = true, adminwire.OptionalTime(at)
		}
		if row.LastError, row.LastErrorAt, err = s.lastError(ctx, d.Name); err != nil {
			return adminwire.Destinations{}, err
		}
		out.Destinations = append(out.Destinations, row)
	}
	return out, nil
}

// lastError returns the last error of the newest event whose delivery to
// destination failed, or else is dead, through the listing's indexes.
func (s *Service) lastError(ctx context.Context, destination string) (string, *time.Time, error) {
	for _, status := range []store.DeliveryStatus{store.StatusFailed, store.StatusDead} {
		page, _, err := s.store.ListEvents(ctx, store.ListRequest{Filter: store.EventFilter{Destination: destination, Status: status}, Limit: 1})
		if err != nil || len(page) == 0 {
			if err != nil {
				return "", nil, fmt.Errorf("last error of %s: %w", destination, err)
			}
			continue
		}
		ds, err := s.store.EventDeliveries(ctx, page[0].Event.ID)
		if err != nil {
			return "", nil, fmt.Errorf("last error of %s: %w", destination, err)
		}
		for _, d := range ds {
			if d.Destination == destination && d.LastError != "" {
				return d.LastError, adminwire.OptionalTime(d.UpdatedAt), nil
			}
		}
	}
	return "", nil, nil
}

// displayURL shows a push URL without what may be secret in it: its user
// information and query.
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// pause answers POST /api/v1/destinations/{name}/pause and resume answers
// .../resume: the destination's deliveries wait, or go again.
func (h *handler) pause(w http.ResponseWriter, r *http.Request) {
	h.setPaused(w, r, true)
}

func (h *handler) resume(w http.ResponseWriter, r *http.Request) {
	h.setPaused(w, r, false)
}

func (h *handler) setPaused(w http.ResponseWriter, r *http.Request, paused bool) {
	name := r.PathValue("name")
	audit(r.Context(), keyDestination, name, "paused", paused)
	if err := h.SetPaused(r.Context(), tokenFrom(r.Context()).Name, name, paused); err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, adminwire.PauseResult{Destination: name, Paused: paused})
}

// SetPaused pauses or resumes a configured destination for actor. A resume
// wakes its workers and waiting consumers.
func (s *Service) SetPaused(ctx context.Context, actor, name string, paused bool) error {
	if _, ok := s.cfg.Destination(name); !ok {
		return notFound("%s", config.UnknownName("destination", name, s.cfg.DestinationNames()))
	}
	if err := s.store.SetPaused(ctx, name, paused, actor, s.now()); err != nil {
		return err
	}
	if !paused {
		s.wake(name)
	}
	return nil
}

// skip answers POST /api/v1/deliveries/{id}/skip: one stuck delivery is
// set skipped and not tried again.
func (h *handler) skip(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.fail(w, r, badRequest("delivery id: want a positive whole number, got %q", r.PathValue("id")))
		return
	}
	audit(r.Context(), keyDeliveryID, id)
	d, err := h.SkipDelivery(r.Context(), tokenFrom(r.Context()).Name, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	audit(r.Context(), keyDestination, d.Destination, keyEventID, d.EventID)
	writeJSON(w, http.StatusOK, adminwire.DeliveryOf(d, nil))
}

// SkipDelivery sets delivery id skipped for actor.
func (s *Service) SkipDelivery(ctx context.Context, actor string, id int64) (store.Delivery, error) {
	d, err := s.store.SkipDelivery(ctx, id, actor, s.now())
	if err != nil {
		return store.Delivery{}, fmt.Errorf("skip: %w", err)
	}
	return d, nil
}
