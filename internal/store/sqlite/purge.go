package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// PurgeEvents erases the payload of the events req.IDs not purged yet, ends
// their live deliveries and writes their tombstones, in one immediate
// transaction on the writer: no claim, replay or backfill runs between two
// of its statements.
func (s *Store) PurgeEvents(ctx context.Context, req store.PurgeRequest) (store.PurgeResult, error) {
	if err := sqlstore.CheckPurge(req); err != nil {
		return store.PurgeResult{}, err
	}
	release, err := s.enter()
	if err != nil {
		return store.PurgeResult{}, fmt.Errorf("purge: %w", err)
	}
	defer release()
	res := store.PurgeResult{Purged: []string{}}
	if len(req.IDs) == 0 {
		return res, nil
	}
	if err := s.purge(ctx, req, &res); err != nil {
		return store.PurgeResult{Purged: []string{}}, fmt.Errorf("purge: %w", mapErr(ctx, err))
	}
	return res, nil
}

func (s *Store) purge(ctx context.Context, req store.PurgeRequest, res *store.PurgeResult) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, purgeEvents, jsonArray(req.IDs), micros(req.Now), req.Actor, req.Reason)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		res.Purged = append(res.Purged, id)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(res.Purged) == 0 {
		return nil
	}
	ids := jsonArray(res.Purged)
	r, err := tx.ExecContext(ctx, purgeDeliveries, ids, micros(req.Now), sqlstore.PurgeNote(req.Actor))
	if err != nil {
		return err
	}
	if res.Ended, err = r.RowsAffected(); err != nil {
		return err
	}
	for _, q := range []string{purgeOrderingKeys, purgeSnippets} {
		if _, err := tx.ExecContext(ctx, q, ids); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Tombstones returns the tombstones of the purged events among ids.
func (s *Store) Tombstones(ctx context.Context, ids []string) (map[string]store.Tombstone, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", err)
	}
	defer release()
	out := make(map[string]store.Tombstone)
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.reader.QueryContext(ctx, selectTombstones, jsonArray(ids))
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", mapErr(ctx, err))
	}
	defer rows.Close()
	for rows.Next() {
		var (
			t          store.Tombstone
			at         int64
			by, reason sql.NullString
		)
		if err := rows.Scan(&t.EventID, &at, &by, &reason); err != nil {
			return nil, fmt.Errorf("read tombstones: %w", mapErr(ctx, err))
		}
		t.PurgedAt, t.Actor, t.Reason = fromMicros(at), by.String, reason.String
		out[t.EventID] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read tombstones: %w", mapErr(ctx, err))
	}
	return out, nil
}

// RecordPurge writes the audit row of a purge.
func (s *Store) RecordPurge(ctx context.Context, a store.PurgeAudit) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("record purge: %w", err)
	}
	defer release()
	_, err = s.writer.ExecContext(ctx, recordPurge, micros(a.Now), a.Actor, sqlstore.AuditPurge(a), a.Matched, a.DryRun, a.Purged)
	if err != nil {
		return fmt.Errorf("record purge: %w", mapErr(ctx, err))
	}
	return nil
}
