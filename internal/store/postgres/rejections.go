package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

// RecordRejections appends rs in one statement, on the pool that is not
// reserved for Ingest, so that a flood of forged requests cannot take
// connections from verified ones. Their IDs are ignored; Skew is stored in
// whole milliseconds.
func (s *Store) RecordRejections(ctx context.Context, rs []store.Rejection) error {
	if len(rs) == 0 {
		return nil
	}
	var (
		at                      = make([]time.Time, len(rs))
		sources, reasons, addrs = make([]string, len(rs)), make([]string, len(rs)), make([]string, len(rs))
		sizes                   = make([]int64, len(rs))
		skews                   = make([]*int64, len(rs))
	)
	for i, r := range rs {
		at[i], sources[i], reasons[i], addrs[i], sizes[i] = r.At, r.Source, r.Reason, r.RemoteAddr, r.BodySize
		if r.HasSkew {
			ms := r.Skew.Milliseconds()
			skews[i] = &ms
		}
	}
	if _, err := s.other.Exec(ctx, insertRejections, at, sources, reasons, addrs, sizes, skews); err != nil {
		return fmt.Errorf("record rejections: %w", s.mapErr(ctx, err))
	}
	return nil
}

// Rejections returns at most limit rejections, the most recently recorded
// first.
func (s *Store) Rejections(ctx context.Context, limit int) ([]store.Rejection, error) {
	rs := make([]store.Rejection, 0)
	if limit <= 0 {
		return rs, nil
	}
	rows, err := s.other.Query(ctx, selectRejections, limit)
	if err != nil {
		return nil, fmt.Errorf("list rejections: %w", s.mapErr(ctx, err))
	}
	rs, err = pgx.AppendRows(rs, rows, func(row pgx.CollectableRow) (store.Rejection, error) {
		var (
			r    store.Rejection
			skew *int64
		)
		if err := row.Scan(&r.ID, &r.At, &r.Source, &r.Reason, &r.RemoteAddr, &r.BodySize, &skew); err != nil {
			return store.Rejection{}, err
		}
		r.At = r.At.UTC()
		if skew != nil {
			r.Skew, r.HasSkew = time.Duration(*skew)*time.Millisecond, true
		}
		return r, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list rejections: %w", s.mapErr(ctx, err))
	}
	return rs, nil
}

// TrimRejections deletes all but the keep most recently recorded
// rejections; a negative keep counts as 0.
func (s *Store) TrimRejections(ctx context.Context, keep int) (int64, error) {
	tag, err := s.other.Exec(ctx, trimRejections, max(keep, 0))
	if err != nil {
		return 0, fmt.Errorf("trim rejections: %w", s.mapErr(ctx, err))
	}
	return tag.RowsAffected(), nil
}
