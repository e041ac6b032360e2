package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// A job is its node's while its lease lasts: the node renews lease_until
// with every batch it commits and every few seconds in between (RenewJob),
// and another node takes over a job not finished whose lease ran out
// (TakeOverJob). Every write of a job's runner — a batch tied to it, a
// save, a renewal — is conditioned on node = the runner, so that a node
// that was presumed dead and comes back writes nothing once its job is
// another's. The leases are read against the database's clock where the
// dialect has one (see Ops.now), so that the nodes' clocks need not agree.

const (
	// tieJob writes a batch's progress to its job, inside the batch's
	// transaction, and renews its lease, while the node ?7 holds the job
	// and it has not finished. On PostgreSQL a takeover that reaches the
	// row first makes this update wait for its commit, then find the node
	// changed (no row: the batch rolls back); one that comes second waits
	// for the batch's commit, then finds the lease renewed and takes
	// nothing. On SQLite one writer runs at a time.
	tieJob = `UPDATE hookrelay.jobs SET done = ?, last_event_id = ?, last_destination = ?, result = ?, lease_until = ?
WHERE id = ? AND node = ? AND finished_at IS NULL RETURNING cancelled_by`

	renewJob = `UPDATE hookrelay.jobs SET lease_until = ? WHERE id = ? AND node = ? AND finished_at IS NULL`

	// expiredJobs reads the jobs to take over from the partial index of
	// the jobs not finished.
	expiredJobs = `SELECT id FROM hookrelay.jobs WHERE finished_at IS NULL AND lease_until < ? ORDER BY id`

	// takeOverJob makes the job ?3 the node ?1's until ?2 if it has not
	// finished and its lease ran out by ?4, keeping the node it had in
	// taken_over_from (SET reads the row as it was). Of two nodes that
	// try at once on PostgreSQL, the second waits for the first's commit,
	// then checks the WHERE against the row it committed, whose lease
	// runs again: it takes nothing.
	takeOverJob = `UPDATE hookrelay.jobs SET node = ?1, lease_until = ?2, taken_over_from = node
WHERE id = ?3 AND finished_at IS NULL AND lease_until < ?4
RETURNING ` + jobColumns
)

// tieJob writes p to the job of tie in tx, the transaction of a batch of
// its walk, and returns who asked the job to stop; when tie.Node no
// longer holds the job, or it ended, it returns store.ErrJobTaken, and the
// batch must roll back.
func (o *Ops) tieJob(ctx context.Context, tx Conn, tie store.JobTie, p store.JobProgress) (string, error) {
	now, err := o.now(ctx, tx)
	if err != nil {
		return "", err
	}
	rows, err := tx.Query(ctx, tieJob, p.Done, p.LastEventID, p.LastDestination, NonNil(p.Result),
		o.b.Dialect.Time(now.Add(tie.Lease)), tie.ID, tie.Node)
	by, err := collect(rows, err, scanString)
	if err != nil {
		return "", err
	}
	if len(by) == 0 {
		return "", store.ErrJobTaken
	}
	return by[0], nil
}

// RenewJob implements store.Jobs.
func (o *Ops) RenewJob(ctx context.Context, id, node string, lease time.Duration) error {
	return o.leaseTx(ctx, "renew job "+id, func(tx Conn, now time.Time) error {
		n, err := tx.Exec(ctx, renewJob, o.b.Dialect.Time(now.Add(lease)), id, node)
		if err != nil || n > 0 {
			return err
		}
		return o.jobNotHeld(ctx, tx, id)
	})
}

// ExpiredJobs implements store.Jobs.
func (o *Ops) ExpiredJobs(ctx context.Context) ([]string, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("expired jobs: %w", err)
	}
	defer release()
	rows, err := o.b.Read.Query(ctx, expiredJobs, o.b.Dialect.Time(time.Now()))
	ids, err := collect(rows, err, scanString)
	if err != nil {
		return nil, o.fail(ctx, "expired jobs", err)
	}
	return ids, nil
}

// TakeOverJob implements store.Jobs.
func (o *Ops) TakeOverJob(ctx context.Context, id, node string, lease time.Duration) (store.JobRecord, error) {
	d := o.b.Dialect
	var j store.JobRecord
	err := o.leaseTx(ctx, "take over job "+id, func(tx Conn, now time.Time) error {
		rows, err := tx.Query(ctx, takeOverJob, node, d.Time(now.Add(lease)), id, d.Time(now))
		js, err := collect(rows, err, func(row Rows) (store.JobRecord, error) { return scanJob(row) })
		if err != nil {
			return err
		}
		if len(js) == 0 {
			return o.jobNotHeld(ctx, tx, id)
		}
		j = js[0]
		_, err = tx.Exec(ctx, insertAction, d.Time(now), node, AuditTakeover(j), store.AuditTakeover)
		return err
	})
	if err != nil {
		return store.JobRecord{}, err
	}
	return j, nil
}
