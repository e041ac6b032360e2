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
// ingest: a replay of a million deliveries is a thousand short writes, not
// one long one that holds SQLite's only writer for seconds. A batch reads
// the selection without a write lock, then re-arms by id those of its
// deliveries that are still not processing (and still in the filter's
// status), so a delivery claimed in between is left alone and counted in
// flight, as one claimed during a single statement would be.

// ReplayKey is the position of a delivery in a replay's walk.
type ReplayKey struct {
	EventID     string
	Destination string
}

// ReplayRow is one delivery of a replay's selection, as a batch reads it.
type ReplayRow struct {
	ID     int64
	Key    ReplayKey
	Status store.DeliveryStatus
}

// ReplayDriver is what a driver provides for RunReplay.
type ReplayDriver interface {
	// ReplayPage returns up to n deliveries of the selection after key
	// after (the zero key for the start), in key order.
	ReplayPage(ctx context.Context, after ReplayKey, n int) ([]ReplayRow, error)
	// ReplayRearm re-arms, in one transaction, the deliveries ids that are
	// not processing (and are in status, when set), and counts those that
	// are processing (and in status): Matched = rearmed + inFlight.
	ReplayRearm(ctx context.Context, ids []int64, status store.DeliveryStatus) (rearmed, inFlight int64, err error)
	// ReplayAudit writes the audit row of the replay.
	ReplayAudit(ctx context.Context, res store.ReplayResult) error
}

// RunReplay replays req's selection through d in batches of batch
// deliveries, then writes the audit row. A dry run only reads and counts.
// When a batch fails after others were re-armed, the audit row records
// what was, and the error is returned.
func RunReplay(ctx context.Context, d ReplayDriver, req store.ReplayRequest, batch int) (store.ReplayResult, error) {
	var (
		res   store.ReplayResult
		after ReplayKey
		err   error
	)
	for {
		var rows []ReplayRow
		if rows, err = d.ReplayPage(ctx, after, batch); err != nil {
			err = fmt.Errorf("read batch: %w", err)
			break
		}
		if req.DryRun {
			res.Matched += int64(len(rows))
			for _, r := range rows {
				if r.Status == store.StatusProcessing {
					res.InFlight++
				}
			}
		} else if len(rows) > 0 {
			ids := make([]int64, len(rows))
			for i, r := range rows {
				ids[i] = r.ID
			}
			rearmed, inFlight, rerr := d.ReplayRearm(ctx, ids, req.Filter.Status)
			if rerr != nil {
				err = fmt.Errorf("re-arm batch: %w", rerr)
				break
			}
			res.Rearmed += rearmed
			res.InFlight += inFlight
			res.Matched += rearmed + inFlight
		}
		if len(rows) < batch {
			break
		}
		after = rows[len(rows)-1].Key
	}
	if err != nil && res.Rearmed == 0 {
		return store.ReplayResult{}, err
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
