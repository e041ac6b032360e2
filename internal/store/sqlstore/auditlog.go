package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// insertAction writes the audit row of a pause, resume or skip.
	insertAction = `INSERT INTO hookrelay.replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind)
VALUES (?, ?, ?, 0, 0, 0, false, ?)`

	selectAudit = `SELECT id, at, actor, kind, filter, matched, rearmed, in_flight, created, purged, dry_run
FROM hookrelay.replays WHERE at >= ? ORDER BY id DESC LIMIT ?`
)

// AuditLog returns at most limit audit rows from since on, newest first.
func (o *Ops) AuditLog(ctx context.Context, since time.Time, limit int) ([]store.AuditEntry, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer release()
	rows, err := o.b.Read.Query(ctx, selectAudit, o.b.Dialect.Time(since), limit)
	es, err := collect(rows, err, func(row Rows) (store.AuditEntry, error) {
		var e store.AuditEntry
		err := row.Scan(&e.ID, At(&e.At), &e.Actor, &e.Kind, &e.Detail, &e.Matched, &e.Rearmed, &e.InFlight, &e.Created, &e.Purged, &e.DryRun)
		return e, err
	})
	if err != nil {
		return nil, o.fail(ctx, "audit log", err)
	}
	return es, nil
}
