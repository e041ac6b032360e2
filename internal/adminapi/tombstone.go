package adminapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// tombstone returns the tombstone of event id, or nil when it was not
// purged.
func (s *Service) tombstone(ctx context.Context, id string) (*adminwire.Tombstone, error) {
	ts, err := s.store.Tombstones(ctx, []string{id})
	if err != nil {
		return nil, fmt.Errorf("read tombstone: %w", err)
	}
	t, ok := ts[id]
	if !ok {
		return nil, nil
	}
	return &adminwire.Tombstone{PurgedAt: t.PurgedAt.UTC(), PurgedBy: t.Actor, Reason: t.Reason}, nil
}

// errPurged is the answer to a request for the payload of a purged event:
// 410, the payload is gone for good.
func errPurged(id string, t *adminwire.Tombstone) error {
	return &requestError{http.StatusGone, fmt.Sprintf("event %s was purged at %s by %s: its body and headers are gone",
		id, t.PurgedAt.Format("2006-01-02T15:04:05Z07:00"), t.PurgedBy)}
}

// StoredPayload returns the event with hookrelay id id as StoredEvent
// does, or a 410 error when its payload was purged.
func (s *Service) StoredPayload(ctx context.Context, id string) (store.Event, error) {
	ev, err := s.StoredEvent(ctx, id)
	if err != nil {
		return ev, err
	}
	t, err := s.tombstone(ctx, id)
	if err != nil {
		return store.Event{}, err
	}
	if t != nil {
		return store.Event{}, errPurged(id, t)
	}
	return ev, nil
}
