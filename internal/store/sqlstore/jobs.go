package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	jobColumns = `id, kind, actor, state, node, request, total, done, last_event_id, last_destination, result, error,
	started_at, running_at, finished_at, cancelled_by, lease_until, taken_over_from`

	insertJob = `INSERT INTO hookrelay.jobs (` + jobColumns + `)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, '')`

	// saveJob writes a job's state and end and renews its lease while the
	// node ?8 holds it. The job's identity, start, request and
	// cancellation are not its runner's to change, and its progress is
	// written with each batch (see tieJob). No row back: the job is
	// unknown, or another node took it over.
	saveJob = `UPDATE hookrelay.jobs SET state = ?, total = ?, error = ?, running_at = ?, finished_at = ?, lease_until = ?
WHERE id = ? AND node = ? RETURNING cancelled_by`

	jobExists = `SELECT id FROM hookrelay.jobs WHERE id = ?`

	selectJob = `SELECT ` + jobColumns + ` FROM hookrelay.jobs WHERE id = ?`

	// selectJobs reads the newest jobs along the primary key: job ids
	// begin with their start time (see adminapi), so id order is start
	// order.
	selectJobs = `SELECT ` + jobColumns + ` FROM hookrelay.jobs ORDER BY id DESC LIMIT ?`

	// cancelJob records the first ask to stop a job that has not ended.
	cancelJob = `UPDATE hookrelay.jobs SET cancelled_by = ? WHERE id = ? AND cancelled_by = '' AND finished_at IS NULL`
)

// CreateJob implements store.Jobs.
func (o *Ops) CreateJob(ctx context.Context, j store.JobRecord, lease time.Duration) error {
	d := o.b.Dialect
	return o.leaseTx(ctx, "create job "+j.ID, func(tx Conn, now time.Time) error {
		_, err := tx.Exec(ctx, insertJob, j.ID, j.Kind, j.Actor, j.State, j.Node, NonNil(j.Request), j.Total, j.Done,
			j.LastEventID, j.LastDestination, NonNil(j.Result), j.Error, d.Time(j.StartedAt), d.NullTime(j.RunningAt),
			d.NullTime(j.FinishedAt), d.Time(now.Add(lease)))
		return err
	})
}

// SaveJob implements store.Jobs.
func (o *Ops) SaveJob(ctx context.Context, j store.JobRecord, lease time.Duration) (string, error) {
	d := o.b.Dialect
	var cancelledBy string
	err := o.leaseTx(ctx, "save job "+j.ID, func(tx Conn, now time.Time) error {
		rows, err := tx.Query(ctx, saveJob, j.State, j.Total, j.Error, d.NullTime(j.RunningAt), d.NullTime(j.FinishedAt),
			d.Time(now.Add(lease)), j.ID, j.Node)
		by, err := collect(rows, err, scanString)
		if err != nil {
			return err
		}
		if len(by) == 0 {
			return o.jobNotHeld(ctx, tx, j.ID)
		}
		cancelledBy = by[0]
		return nil
	})
	return cancelledBy, err
}

// leaseTx runs fn in one write transaction, with the time of the clock
// that job leases are read against (see Ops.now); what names the
// operation in its error.
func (o *Ops) leaseTx(ctx context.Context, what string, fn func(tx Conn, now time.Time) error) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	err = o.b.InTx(ctx, func(tx Conn) error {
		now, err := o.now(ctx, tx)
		if err != nil {
			return err
		}
		return fn(tx, now)
	})
	if err != nil {
		return o.fail(ctx, what, err)
	}
	return nil
}

// jobNotHeld tells why a write conditioned on a job's node (and lease)
// changed no row: the job is unknown (store.ErrNotFound), or it is not as
// the write required — another node's, ended, or for a takeover not free
// (store.ErrJobTaken).
func (o *Ops) jobNotHeld(ctx context.Context, c Conn, id string) error {
	rows, err := c.Query(ctx, jobExists, id)
	found, err := collect(rows, err, scanString)
	switch {
	case err != nil:
		return err
	case len(found) == 0:
		return store.ErrNotFound
	}
	return store.ErrJobTaken
}

// scanString reads a row of one text column.
func scanString(row Rows) (string, error) {
	var s string
	err := row.Scan(&s)
	return s, err
}

// GetJob implements store.Jobs.
func (o *Ops) GetJob(ctx context.Context, id string) (store.JobRecord, error) {
	release, err := o.enter()
	if err != nil {
		return store.JobRecord{}, fmt.Errorf("get job %s: %w", id, err)
	}
	defer release()
	j, err := scanJob(o.b.Read.QueryRow(ctx, selectJob, id))
	if err != nil {
		return store.JobRecord{}, o.fail(ctx, "get job "+id, err)
	}
	return j, nil
}

// ListJobs implements store.Jobs.
func (o *Ops) ListJobs(ctx context.Context) ([]store.JobRecord, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	defer release()
	rows, err := o.b.Read.Query(ctx, selectJobs, store.KeepJobs)
	jobs, err := collect(rows, err, func(row Rows) (store.JobRecord, error) { return scanJob(row) })
	if err != nil {
		return nil, o.fail(ctx, "list jobs", err)
	}
	return jobs, nil
}

// CancelJob implements store.Jobs.
func (o *Ops) CancelJob(ctx context.Context, id, actor string) (store.JobRecord, error) {
	release, err := o.enter()
	if err != nil {
		return store.JobRecord{}, fmt.Errorf("cancel job %s: %w", id, err)
	}
	defer release()
	if _, err := o.b.Write.Exec(ctx, cancelJob, actor, id); err != nil {
		return store.JobRecord{}, o.fail(ctx, "cancel job "+id, err)
	}
	j, err := scanJob(o.b.Read.QueryRow(ctx, selectJob, id))
	if err != nil {
		return store.JobRecord{}, o.fail(ctx, "cancel job "+id, err)
	}
	return j, nil
}

// scanJob reads one row of jobColumns.
func scanJob(row Row) (store.JobRecord, error) {
	var j store.JobRecord
	err := row.Scan(&j.ID, &j.Kind, &j.Actor, &j.State, &j.Node, &j.Request, &j.Total, &j.Done, &j.LastEventID, &j.LastDestination,
		&j.Result, &j.Error, At(&j.StartedAt), At(&j.RunningAt), At(&j.FinishedAt), &j.CancelledBy, At(&j.LeaseUntil), &j.TakenOverFrom)
	return j, err
}
