package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// PurgeEvents erases the payload of the events req.IDs not purged yet, ends
// their live deliveries and writes their tombstones, in one transaction.
// The events are updated first: a backfill that would give one a delivery
// meanwhile waits for the purge and then passes it by (see
// createDeliveries).
func (s *Store) PurgeEvents(ctx context.Context, req store.PurgeRequest) (store.PurgeResult, error) {
	if err := sqlstore.CheckPurge(req); err != nil {
		return store.PurgeResult{}, err
	}
	res := store.PurgeResult{Purged: []string{}}
	if len(req.IDs) == 0 {
		return res, nil
	}
	err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, purgeEvents, req.IDs, req.Now, req.Actor, req.Reason)
		if err != nil {
			return err
		}
		if res.Purged, err = pgx.AppendRows(res.Purged, rows, pgx.RowTo[string]); err != nil {
			return err
		}
		if len(res.Purged) == 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, purgeDeliveries, res.Purged, req.Now, sqlstore.PurgeNote(req.Actor))
		if err != nil {
			return err
		}
		res.Ended = tag.RowsAffected()
		for _, q := range []string{purgeOrderingKeys, purgeSnippets} {
			if _, err := tx.Exec(ctx, q, res.Purged); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return store.PurgeResult{Purged: []string{}}, fmt.Errorf("purge: %w", s.mapErr(ctx, err))
	}
	return res, nil
}

// Tombstones returns the tombstones of the purged events among ids.
func (s *Store) Tombstones(ctx context.Context, ids []string) (map[string]store.Tombstone, error) {
	out := make(map[string]store.Tombstone)
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.other.Query(ctx, selectTombstones, ids)
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", s.mapErr(ctx, err))
	}
	var t store.Tombstone
	_, err = pgx.ForEachRow(rows, []any{&t.EventID, &t.PurgedAt, &t.Actor, &t.Reason}, func() error {
		t.PurgedAt = t.PurgedAt.UTC()
		out[t.EventID] = t
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", s.mapErr(ctx, err))
	}
	return out, nil
}

// RecordPurge writes the audit row of a purge.
func (s *Store) RecordPurge(ctx context.Context, a store.PurgeAudit) error {
	_, err := s.other.Exec(ctx, recordPurge, a.Now, a.Actor, sqlstore.AuditPurge(a), a.Matched, a.DryRun, a.Purged)
	if err != nil {
		return fmt.Errorf("record purge: %w", s.mapErr(ctx, err))
	}
	return nil
}
