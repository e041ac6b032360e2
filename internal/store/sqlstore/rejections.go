package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	insertRejections = `INSERT INTO hookrelay.rejections (at, source, reason, remote_addr, body_size, skew_ms) VALUES `

	selectRejections = `SELECT id, at, source, reason, remote_addr, body_size, skew_ms
FROM hookrelay.rejections ORDER BY id DESC LIMIT ?`

	// trimRejections deletes every row older than the newest ? rows.
	trimRejections = `DELETE FROM hookrelay.rejections WHERE id <= (
	SELECT id FROM hookrelay.rejections ORDER BY id DESC LIMIT 1 OFFSET ?
)`
)

// RecordRejections appends rs in one transaction, in order. Their IDs are
// ignored; Skew is stored in whole milliseconds.
func (o *Ops) RecordRejections(ctx context.Context, rs []store.Rejection) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("record rejections: %w", err)
	}
	defer release()
	if len(rs) == 0 {
		return nil
	}
	args := make([]any, 0, 6*len(rs))
	for _, r := range rs {
		var skew any
		if r.HasSkew {
			skew = r.Skew.Milliseconds()
		}
		args = append(args, o.b.Dialect.Time(r.At), r.Source, r.Reason, r.RemoteAddr, r.BodySize, skew)
	}
	err = o.b.InTx(ctx, func(tx Conn) error { return execRows(ctx, tx, insertRejections, 6, args) })
	if err != nil {
		return o.fail(ctx, "record rejections", err)
	}
	return nil
}

// Rejections returns at most limit rejections, the most recently recorded
// first.
func (o *Ops) Rejections(ctx context.Context, limit int) ([]store.Rejection, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("list rejections: %w", err)
	}
	defer release()
	if limit <= 0 {
		return []store.Rejection{}, nil
	}
	rows, err := o.b.Read.Query(ctx, selectRejections, limit)
	rs, err := collect(rows, err, func(row Rows) (store.Rejection, error) {
		var (
			r    store.Rejection
			skew sql.NullInt64
		)
		err := row.Scan(&r.ID, At(&r.At), &r.Source, &r.Reason, &r.RemoteAddr, &r.BodySize, &skew)
		r.Skew, r.HasSkew = time.Duration(skew.Int64)*time.Millisecond, skew.Valid
		return r, err
	})
	if err != nil {
		return nil, o.fail(ctx, "list rejections", err)
	}
	return rs, nil
}

// TrimRejections deletes all but the keep most recently recorded
// rejections; a negative keep counts as 0.
func (o *Ops) TrimRejections(ctx context.Context, keep int) (int64, error) {
	release, err := o.enter()
	if err != nil {
		return 0, fmt.Errorf("trim rejections: %w", err)
	}
	defer release()
	n, err := o.b.Write.Exec(ctx, trimRejections, max(keep, 0))
	if err != nil {
		return 0, o.fail(ctx, "trim rejections", err)
	}
	return n, nil
}
