package adminapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// maxReplayIDs bounds the ids one replay names.
const maxReplayIDs = 1000

// checkReplay refuses a replay that cannot match what it names: a source
// or destination the config does not have, or event ids that do not exist
// (each missing one is named). A typo then answers 404 instead of matching
// nothing.
func (s *Service) checkReplay(ctx context.Context, f store.EventFilter) error {
	if f.Source != "" {
		if _, ok := s.cfg.Source(f.Source); !ok {
			return notFound("%s", config.UnknownName("source", f.Source, s.cfg.SourceNames()))
		}
	}
	if f.Destination != "" {
		if _, ok := s.cfg.Destination(f.Destination); !ok {
			return notFound("%s", config.UnknownName("destination", f.Destination, s.cfg.DestinationNames()))
		}
	}
	if len(f.IDs) == 0 {
		return nil
	}
	if len(f.IDs) > maxReplayIDs {
		return badRequest("ids: %d given, at most %d at once", len(f.IDs), maxReplayIDs)
	}
	if err := s.checkIDsExist(ctx, f.IDs, "replayed"); err != nil {
		return err
	}
	ts, err := s.store.Tombstones(ctx, f.IDs)
	if err != nil {
		return fmt.Errorf("look up replay ids: %w", err)
	}
	var purged []string
	for _, id := range f.IDs {
		if _, ok := ts[id]; ok && !slices.Contains(purged, id) {
			purged = append(purged, id)
		}
	}
	if len(purged) > 0 {
		return &requestError{http.StatusConflict, fmt.Sprintf("event %s was purged: its payload is gone and it cannot be replayed; nothing was replayed", strings.Join(purged, ", "))}
	}
	return nil
}

// checkIDsExist answers 404 naming every id of ids that is no event, with
// what was then not done (done: "replayed", "purged").
func (s *Service) checkIDsExist(ctx context.Context, ids []string, done string) error {
	found, _, err := s.store.ListEvents(ctx, store.ListRequest{Filter: store.EventFilter{IDs: ids}, Limit: len(ids)})
	if err != nil {
		return fmt.Errorf("look up event ids: %w", err)
	}
	var missing []string
	for _, id := range ids {
		if !slices.ContainsFunc(found, func(s store.EventSummary) bool { return s.Event.ID == id }) && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return notFound("no event %s: nothing was %s (hookrelay's event ids are listed by GET /api/v1/events)", strings.Join(missing, ", "), done)
	}
	return nil
}
