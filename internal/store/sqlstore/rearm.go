package sqlstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hookrelay/hookrelay/internal/failure"
)

const (
	// rearmSet re-arms a delivery d, due at a placeholder (%s). Its last
	// error and status code are cleared, and its failure kind is theirs
	// then: failure.Other.
	rearmSet = `status = 'pending', attempts = 0, next_attempt_at = %[1]s,
	lease_until = NULL, lease_token = NULL, finished_at = NULL,
	last_error = '', last_status_code = 0, failure_kind = '` + string(failure.Other) + `',
	last_attempted_at = NULL, last_duration_ms = 0,
	replay_count = d.replay_count + 1, updated_at = %[1]s`

	// rearmable is the condition that a delivery d may be re-armed: it is
	// not processing, nor purged, when the statement reaches it; a
	// condition on its status may follow (%s).
	rearmable = `d.status NOT IN ('processing', 'purged') %s`

	// rearmIDs re-arms at ?2 the deliveries of a list at ?1 (%[2]s) that
	// may be re-armed (%[3]s); %[1]s is rearmSet.
	rearmIDs = `UPDATE hookrelay.deliveries AS d SET %[1]s
WHERE %[2]s AND %[3]s`

	// countBusy counts the deliveries of a list (%[1]s) that are
	// processing, with a condition on their status when the filter has
	// one (%[2]s).
	countBusy = `SELECT count(*) FROM hookrelay.deliveries d
WHERE %[1]s AND d.status = 'processing' %[2]s`
)

// rearm re-arms the deliveries w selects, up to limit (a LIMIT clause,
// or none), in one transaction that, where it may, commits without
// waiting for its flush (the audit row's commit waits, for every batch),
// and that wakes the listeners of what it re-armed. With job, a batch that
// selected any writes job's progress to the job of r.req.Job in that
// transaction, which rolls back when the job is no longer its node's (see
// tieJob): the batch and the job's progress commit together or not at all.
//
// Where the driver has a RearmBatch statement, that one statement
// selects and re-arms the batch. Elsewhere the batch is read first, so
// that only its re-arming holds the writer, and re-armed by id; then
// those of it processing are counted, so that a delivery claimed
// meanwhile is counted once, in flight.
func (r replayer) rearm(ctx context.Context, w *Where, limit string, job JobWrite) (ReplayBatch, error) {
	d := r.o.b.Dialect
	var (
		b     ReplayBatch
		ids   []int64
		dests []string
	)
	if d.RearmBatch == "" {
		rows, err := r.o.b.Read.Query(ctx, fmt.Sprintf(replaySelection, w.SQL(), limit), w.Args()...)
		_, err = collect(rows, err, func(row Rows) (struct{}, error) {
			var id int64
			err := row.Scan(&id, &b.Last.EventID, &b.Last.Destination, new(string))
			ids, dests = append(ids, id), append(dests, b.Last.Destination)
			return struct{}{}, err
		})
		if err != nil || len(ids) == 0 {
			return ReplayBatch{}, err
		}
		b.Selected = len(ids)
	}
	status := ReplayStatus(r.req.Filter.Status)
	err := r.o.b.InTx(ctx, func(tx Conn) error {
		for _, st := range []string{d.RetireLock, d.AsyncCommit} {
			if st == "" {
				continue
			}
			if _, err := tx.Exec(ctx, st); err != nil {
				return err
			}
		}
		var err error
		if d.RearmBatch != "" {
			dests, err = r.rearmInOne(ctx, tx, w, limit, &b)
		} else {
			err = r.rearmIDs(ctx, tx, ids, status, &b)
		}
		if err != nil {
			return err
		}
		if job != nil && b.Selected > 0 {
			if b.CancelledBy, err = r.o.tieJob(ctx, tx, *r.req.Job, job(b)); err != nil {
				return err
			}
		}
		if b.Rearmed == 0 {
			return nil
		}
		return r.o.notify(ctx, tx, dests)
	})
	if err != nil {
		return ReplayBatch{}, err // rolled back: nothing re-armed
	}
	return b, nil
}

// rearmInOne selects and re-arms the batch w selects, up to limit, with
// the driver's RearmBatch, into b, and returns the destinations it
// re-armed.
func (r replayer) rearmInOne(ctx context.Context, tx Conn, w *Where, limit string, b *ReplayBatch) ([]string, error) {
	sel := fmt.Sprintf(replaySelection, w.SQL(), limit)
	w.Arg(r.o.b.Dialect.Time(r.req.Now))
	now := "?" + strconv.Itoa(len(w.Args())) // used twice, after every ? of sel
	query := fmt.Sprintf(r.o.b.Dialect.RearmBatch, sel, fmt.Sprintf(rearmSet, now),
		fmt.Sprintf(rearmable, ReplayStatus(r.req.Filter.Status)))
	var (
		selected int64
		dests    []string
	)
	err := tx.QueryRow(ctx, query, w.Args()...).
		Scan(&selected, &b.InFlight, &b.Rearmed, &b.Last.EventID, &b.Last.Destination, &dests)
	b.Selected = int(selected)
	return dests, err
}

// rearmIDs re-arms the deliveries ids, into b, then counts those
// processing. The attempt that ended a done one is written to attempts
// first, as the re-arming clears its row's copy.
func (r replayer) rearmIDs(ctx context.Context, tx Conn, ids []int64, status string, b *ReplayBatch) error {
	d := r.o.b.Dialect
	list := d.List(ids)
	keep := fmt.Sprintf(keepDoneAttempts, d.in("d.id", "?", "bigint"), status)
	if _, err := tx.Exec(ctx, keep, list); err != nil {
		return fmt.Errorf("keep the attempts that ended deliveries done: %w", err)
	}
	query := fmt.Sprintf(rearmIDs, fmt.Sprintf(rearmSet, "?2"), d.in("d.id", "?1", "bigint"), fmt.Sprintf(rearmable, status))
	var err error
	if b.Rearmed, err = tx.Exec(ctx, query, list, d.Time(r.req.Now)); err != nil {
		return err
	}
	if err := tx.QueryRow(ctx, fmt.Sprintf(countBusy, d.in("d.id", "?", "bigint"), status), list).Scan(&b.InFlight); err != nil {
		return fmt.Errorf("count in flight: %w", err)
	}
	return nil
}
