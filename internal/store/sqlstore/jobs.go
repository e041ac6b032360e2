package sqlstore

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	jobColumns = `id, kind, actor, state, node, total, done, last_event_id, result, error,
	started_at, running_at, finished_at, cancelled_by`

	insertJob = `INSERT INTO hookrelay.jobs (` + jobColumns + `)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')`

	// saveJob writes a job's progress; the job's identity, start and
	// cancellation are not its runner's to change.
	saveJob = `UPDATE hookrelay.jobs SET state = ?, node = ?, total = ?, done = ?, last_event_id = ?, result = ?, error = ?,
	running_at = ?, finished_at = ?
WHERE id = ? RETURNING cancelled_by`

	selectJob = `SELECT ` + jobColumns + ` FROM hookrelay.jobs WHERE id = ?`

	// selectJobs reads the newest jobs along the primary key: job ids
	// begin with their start time (see adminapi), so id order is start
	// order.
	selectJobs = `SELECT ` + jobColumns + ` FROM hookrelay.jobs ORDER BY id DESC LIMIT ?`

	// cancelJob records the first ask to stop a job that has not ended.
	cancelJob = `UPDATE hookrelay.jobs SET cancelled_by = ? WHERE id = ? AND cancelled_by = '' AND finished_at IS NULL`
)

// CreateJob implements store.Jobs.
func (o *Ops) CreateJob(ctx context.Context, j store.JobRecord) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("create job %s: %w", j.ID, err)
	}
	defer release()
	d := o.b.Dialect
	_, err = o.b.Write.Exec(ctx, insertJob, j.ID, j.Kind, j.Actor, j.State, j.Node, j.Total, j.Done, j.LastEventID,
		NonNil(j.Result), j.Error, d.Time(j.StartedAt), d.NullTime(j.RunningAt), d.NullTime(j.FinishedAt))
	if err != nil {
		return o.fail(ctx, "create job "+j.ID, err)
	}
	return nil
}

// SaveJob implements store.Jobs.
func (o *Ops) SaveJob(ctx context.Context, j store.JobRecord) (string, error) {
	release, err := o.enter()
	if err != nil {
		return "", fmt.Errorf("save job %s: %w", j.ID, err)
	}
	defer release()
	d := o.b.Dialect
	var cancelledBy string
	err = o.b.Write.QueryRow(ctx, saveJob, j.State, j.Node, j.Total, j.Done, j.LastEventID, NonNil(j.Result), j.Error,
		d.NullTime(j.RunningAt), d.NullTime(j.FinishedAt), j.ID).Scan(&cancelledBy)
	if err != nil {
		return "", o.fail(ctx, "save job "+j.ID, err)
	}
	return cancelledBy, nil
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
	err := row.Scan(&j.ID, &j.Kind, &j.Actor, &j.State, &j.Node, &j.Total, &j.Done, &j.LastEventID, &j.Result, &j.Error,
		At(&j.StartedAt), At(&j.RunningAt), At(&j.FinishedAt), &j.CancelledBy)
	return j, err
}
