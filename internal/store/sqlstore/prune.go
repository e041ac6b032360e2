package sqlstore

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// PruneBound returns what bounds the events req may prune: bound, the
// later of its DoneBefore and DeadBefore, before which each was received,
// and boundID, below which their ids lie (AboveEveryID when bound bounds
// no id). ok is false when req prunes nothing: a Limit below 1, or
// neither bound set.
func PruneBound(req store.PruneRequest) (bound time.Time, boundID string, ok bool) {
	if req.Limit < 1 || (req.DoneBefore.IsZero() && req.DeadBefore.IsZero()) {
		return time.Time{}, "", false
	}
	bound = req.DoneBefore
	if req.DeadBefore.After(bound) {
		bound = req.DeadBefore
	}
	if boundID, ok = IDBefore(bound); !ok {
		boundID = AboveEveryID
	}
	return bound, boundID, true
}
