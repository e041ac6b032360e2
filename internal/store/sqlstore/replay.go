package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

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
type ReplayKey = store.ReplayKey

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
	// CancelledBy is, for a batch tied to a job, who had asked the job
	// to stop when the batch committed; empty when no one had.
	CancelledBy string
}

// JobWrite is what the transaction of a batch tied to a job (see
// store.ReplayRequest.Job) writes to the job once the batch is applied:
// its progress, from what the batch did.
type JobWrite func(ReplayBatch) store.JobProgress

// ReplayDriver is what a driver provides for RunReplay.
type ReplayDriver interface {
	// ReplayBatch reads up to n deliveries of the selection after key
	// after (the zero key for the start), in key order, and, unless
	// dryRun, re-arms in one transaction those not processing. With job,
	// a batch that selects any also writes job's progress to the job it
	// is tied to, in that transaction, and rolls back with
	// store.ErrJobTaken when the job is no longer its node's.
	ReplayBatch(ctx context.Context, after ReplayKey, n int, dryRun bool, job JobWrite) (ReplayBatch, error)
	// ReplayDeferred counts the deliveries of the selection that no
	// batch reads, as they have no row yet — those leased at ingest whose
	// rows are deferred, in flight — once the walk has ended: they are
	// left alone and counted in flight.
	ReplayDeferred(ctx context.Context) (int64, error)
	// ReplayAudit writes the audit row of the replay.
	ReplayAudit(ctx context.Context, res store.ReplayResult) error
}

// RangeReplayer is a ReplayDriver that can also re-arm a stretch of the
// selection whose bounds a dry walk found, so that several stretches can
// be re-armed at once.
type RangeReplayer interface {
	ReplayDriver
	// ReplayRange re-arms, in one transaction, the deliveries of the
	// selection after key after and up to key upto included — with no
	// upper bound when open — as ReplayBatch would; Selected counts what
	// it read.
	ReplayRange(ctx context.Context, after, upto ReplayKey, open bool) (ReplayBatch, error)
	// ReplayStretches is how many stretches may be re-armed at once.
	ReplayStretches() int
}

// RunReplay replays req's selection through d in batches of batch
// deliveries (req.MaxBatch when smaller), telling req.Progress after each,
// then writes the audit row. When a batch fails after others were
// re-armed, the audit row records what was, and the error is returned.
// When req.Progress stops the walk, the result so far is returned with
// its error. req.NoAuditRow leaves the audit row out, and so does a walk
// tied to a job that does not end here: one whose job another node took
// over (store.ErrJobTaken), or whose context ended (its process is going
// away, and another node will take the job over); the node that ends the
// job writes its row. req.Resume starts the walk part way, its totals
// counted in. Once the walk has ended, the deliveries of the selection
// in flight that it could not read, having no rows yet
// (d.ReplayDeferred), are counted in flight.
//
// A replay that re-arms and is not told of its progress runs through a
// RangeReplayer that allows several stretches at once (see replayStretches).
func RunReplay(ctx context.Context, d ReplayDriver, req store.ReplayRequest, batch int) (store.ReplayResult, error) {
	if req.MaxBatch > 0 {
		batch = min(batch, req.MaxBatch)
	}
	var (
		res     store.ReplayResult
		err     error
		stopped bool
	)
	if r, ok := d.(RangeReplayer); ok && !req.DryRun && req.Progress == nil && req.Job == nil && req.Resume == (store.ReplayResume{}) && r.ReplayStretches() > 1 {
		res, err = replayStretches(ctx, r, batch)
	} else {
		res, stopped, err = replayInTurn(ctx, d, req, batch)
	}
	if err == nil && !stopped {
		// Counted once the walk has ended, a deferred delivery whose row
		// was written ahead of the walk is counted by its batch alone.
		var n int64
		if n, err = d.ReplayDeferred(ctx); err != nil {
			err = fmt.Errorf("count deferred deliveries in flight: %w", err)
		}
		res.InFlight, res.Matched = res.InFlight+n, res.Matched+n
	}
	if err != nil && res.Rearmed == 0 && !stopped {
		return store.ReplayResult{}, err
	}
	if req.NoAuditRow || errors.Is(err, store.ErrJobTaken) || (req.Job != nil && ctx.Err() != nil) {
		return res, err
	}
	if aerr := d.ReplayAudit(context.WithoutCancel(ctx), res); aerr != nil {
		err = errors.Join(err, fmt.Errorf("write audit row: %w", aerr))
	}
	return res, err
}

// addTo counts what batch b of a replay did into res: on a dry run, what
// it selected is what it matched.
func (b ReplayBatch) addTo(res *store.ReplayResult, dryRun bool) {
	res.Rearmed += b.Rearmed
	res.InFlight += b.InFlight
	if dryRun {
		res.Matched += int64(b.Selected)
	} else {
		res.Matched += b.Rearmed + b.InFlight
	}
}

// replayInTurn walks req's selection through d one batch after the other,
// from req.Resume, telling req.Progress after each; a walk tied to a job
// writes its progress with each batch. stopped reports that Progress, or
// the job's cancellation, stopped the walk, with its error.
func replayInTurn(ctx context.Context, d ReplayDriver, req store.ReplayRequest, batch int) (res store.ReplayResult, stopped bool, err error) {
	after, res := req.Resume.After, req.Resume.Done
	var job JobWrite
	if req.Job != nil && !req.DryRun {
		job = func(b ReplayBatch) store.JobProgress {
			done := res
			b.addTo(&done, false)
			return req.JobProgress(done, b.Last)
		}
	}
	for {
		b, err := d.ReplayBatch(ctx, after, batch, req.DryRun, job)
		if err != nil {
			return res, false, fmt.Errorf("replay a batch: %w", err)
		}
		b.addTo(&res, req.DryRun)
		if req.Progress != nil && b.Selected > 0 {
			if err := req.Progress(res, b.Last.EventID); err != nil {
				return res, true, err
			}
		}
		if b.CancelledBy != "" {
			return res, true, fmt.Errorf("%w by %s", store.ErrJobCancelled, b.CancelledBy)
		}
		if b.Selected < batch {
			return res, false, nil
		}
		after = b.Last
	}
}

// stretch is one range of a replay's selection: after after, up to upto
// included, or without an upper bound when open.
type stretch struct {
	after, upto ReplayKey
	open        bool
}

// replayStretches re-arms the selection of r in stretches of about batch
// deliveries, up to r.ReplayStretches() of them at once, each in a
// transaction of its own. A dry walk, as a dry run makes, finds where each
// stretch ends while the re-arms run behind it; the last stretch has no
// upper bound, so it takes what the walk found after the last full batch
// and whatever joined the selection since. It stops at the first error,
// once the stretches already running have ended, and returns what was
// re-armed with that error.
func replayStretches(ctx context.Context, r RangeReplayer, batch int) (store.ReplayResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := make(chan stretch)
	var walkErr error
	go func() {
		defer close(todo)
		var after ReplayKey
		for {
			b, err := r.ReplayBatch(ctx, after, batch, true, nil)
			if err != nil {
				walkErr = fmt.Errorf("walk the selection: %w", err)
				return
			}
			s := stretch{after: after, upto: b.Last, open: b.Selected < batch}
			select {
			case todo <- s:
			case <-ctx.Done():
				return
			}
			if s.open {
				return
			}
			after = b.Last
		}
	}()

	var (
		mu   sync.Mutex
		res  store.ReplayResult
		errs []error
		wg   sync.WaitGroup
	)
	for range r.ReplayStretches() {
		wg.Go(func() {
			for s := range todo {
				if ctx.Err() != nil {
					continue // stopped: let the walk end
				}
				b, err := r.ReplayRange(ctx, s.after, s.upto, s.open)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("replay a batch: %w", err))
					cancel()
				}
				b.addTo(&res, false)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// The walk's error is its own unless a failed stretch stopped it.
	if len(errs) == 0 || !errors.Is(walkErr, context.Canceled) {
		errs = append(errs, walkErr)
	}
	return res, errors.Join(errs...)
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
