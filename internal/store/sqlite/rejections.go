package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// RecordRejections appends rs in one transaction. Their IDs are ignored;
// Skew is stored in whole milliseconds.
func (s *Store) RecordRejections(ctx context.Context, rs []store.Rejection) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("record rejections: %w", err)
	}
	defer release()
	if len(rs) == 0 {
		return nil
	}
	if err := s.recordRejections(ctx, rs); err != nil {
		return fmt.Errorf("record rejections: %w", mapErr(ctx, err))
	}
	return nil
}

func (s *Store) recordRejections(ctx context.Context, rs []store.Rejection) error {
	st, err := s.prepared(ctx)
	if err != nil {
		return err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins := tx.StmtContext(ctx, st.insertRejection)
	for _, r := range rs {
		var skew any
		if r.HasSkew {
			skew = r.Skew.Milliseconds()
		}
		if _, err := ins.ExecContext(ctx, micros(r.At), r.Source, r.Reason, r.RemoteAddr, r.BodySize, skew); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Rejections returns at most limit rejections, the most recently recorded
// first.
func (s *Store) Rejections(ctx context.Context, limit int) ([]store.Rejection, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("list rejections: %w", err)
	}
	defer release()
	rs := []store.Rejection{}
	if limit <= 0 {
		return rs, nil
	}
	rows, err := s.reader.QueryContext(ctx, selectRejections, limit)
	if err != nil {
		return nil, fmt.Errorf("list rejections: %w", mapErr(ctx, err))
	}
	defer rows.Close()
	for rows.Next() {
		var (
			r    store.Rejection
			at   int64
			skew sql.NullInt64
		)
		if err := rows.Scan(&r.ID, &at, &r.Source, &r.Reason, &r.RemoteAddr, &r.BodySize, &skew); err != nil {
			return nil, fmt.Errorf("list rejections: %w", mapErr(ctx, err))
		}
		r.At = fromMicros(at)
		r.Skew, r.HasSkew = time.Duration(skew.Int64)*time.Millisecond, skew.Valid
		rs = append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list rejections: %w", mapErr(ctx, err))
	}
	return rs, nil
}

// TrimRejections deletes all but the keep most recently recorded
// rejections; a negative keep counts as 0.
func (s *Store) TrimRejections(ctx context.Context, keep int) (int64, error) {
	release, err := s.enter()
	if err != nil {
		return 0, fmt.Errorf("trim rejections: %w", err)
	}
	defer release()
	res, err := s.writer.ExecContext(ctx, trimRejections, max(keep, 0))
	if err != nil {
		return 0, fmt.Errorf("trim rejections: %w", mapErr(ctx, err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("trim rejections: %w", err)
	}
	return n, nil
}
