package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// A replay walks its selection in batches, in (event_id, destination)
// order — the order of the deliveries' unique index, so that each batch
// continues where the last one stopped — and re-arms each batch in a
// transaction of its own. Between two batches the database is free for
// ingest: a replay of a million deliveries is many short writes, not one
// long one that holds SQLite's only writer for seconds. A batch re-arms
// those of its deliveries that are still not processing (and still in
// the filter's status) when it writes them, so a delivery claimed after
// the batch was read is left alone and counted in flight, as one claimed
// during a single statement would be.

// ReplayKey is the position of a delivery in a replay's walk.
type ReplayKey struct {
	EventID     string
	Destination string
}

// ReplayBatch is what one batch of a replay did.
type ReplayBatch struct {
	// Selected is how many deliveries the batch read; fewer than asked
	// for ends the walk.
	Selected int
	// Last is the key of the last one, where the next batch starts.
	Last ReplayKey
	// Rearmed is how many it re-armed (0 on a dry run), InFlight how
	// many were processing; on a dry run, Selected is what it matched.
	Rearmed, InFlight int64
}

// ReplayDriver is what a driver provides for RunReplay.
type ReplayDriver interface {
	// ReplayBatch reads up to n deliveries of the selection after key
	// after (the zero key for the start), in key order, and, unless
	// dryRun, re-arms in one transaction those not processing.
	ReplayBatch(ctx context.Context, after ReplayKey, n int, dryRun bool) (ReplayBatch, error)
	// ReplayAudit writes the audit row of the replay.
	ReplayAudit(ctx context.Context, res store.ReplayResult) error
}

// RunReplay replays req's selection through d in batches of batch
// deliveries (req.MaxBatch when smaller), telling req.Progress after each,
// then writes the audit row. When a batch fails after others were
// re-armed, the audit row records what was, and the error is returned.
// When req.Progress stops the walk, the result so far is returned with
// its error. req.NoAuditRow leaves the audit row out.
func RunReplay(ctx context.Context, d ReplayDriver, req store.ReplayRequest, batch int) (store.ReplayResult, error) {
	var (
		res     store.ReplayResult
		after   ReplayKey
		err     error
		stopped bool
	)
	if req.MaxBatch > 0 {
		batch = min(batch, req.MaxBatch)
	}
	for {
		b, berr := d.ReplayBatch(ctx, after, batch, req.DryRun)
		if berr != nil {
			err = fmt.Errorf("replay a batch: %w", berr)
			break
		}
		res.Rearmed += b.Rearmed
		res.InFlight += b.InFlight
		if req.DryRun {
			res.Matched += int64(b.Selected)
		} else {
			res.Matched += b.Rearmed + b.InFlight
		}
		if req.Progress != nil && b.Selected > 0 {
			if err = req.Progress(res, b.Last.EventID); err != nil {
				stopped = true
				break
			}
		}
		if b.Selected < batch {
			break
		}
		after = b.Last
	}
	if err != nil && res.Rearmed == 0 && !stopped {
		return store.ReplayResult{}, err
	}
	if req.NoAuditRow {
		return res, err
	}
	if aerr := d.ReplayAudit(context.WithoutCancel(ctx), res); aerr != nil {
		err = errors.Join(err, fmt.Errorf("write audit row: %w", aerr))
	}
	return res, err
}

// ReplayStatus returns the condition that a delivery d is in status, to
// be added with AND to a batch's re-arm, or nothing when status is empty.
// status was checked by FilterDeliveries.
func ReplayStatus(status store.DeliveryStatus) string {
	if status == "" {
		return ""
	}
	return "AND " + statusCondition(status)
}
