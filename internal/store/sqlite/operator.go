package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// SetPaused pauses or resumes destination and writes the audit row, in one
// transaction.
func (s *Store) SetPaused(ctx context.Context, destination string, paused bool, actor string, now time.Time) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("pause %s: %w", destination, err)
	}
	defer release()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("pause %s: %w", destination, mapErr(ctx, err))
	}
	defer tx.Rollback()
	kind := store.AuditResume
	if paused {
		kind = store.AuditPause
		_, err = tx.ExecContext(ctx, insertPaused, destination, micros(now), actor)
	} else {
		_, err = tx.ExecContext(ctx, deletePaused, destination)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, insertAction, micros(now), actor, sqlstore.AuditDestination(destination), kind)
	}
	if err == nil {
		err = tx.Commit()
	}
	s.paused.Forget()
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, destination, mapErr(ctx, err))
	}
	return nil
}

// Paused returns the paused destinations.
func (s *Store) Paused(ctx context.Context) (map[string]time.Time, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("paused destinations: %w", err)
	}
	defer release()
	return s.readPaused(ctx)
}

// readPaused reads the paused destinations; the caller holds s.mu.
func (s *Store) readPaused(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.reader.QueryContext(ctx, listPaused)
	if err != nil {
		return nil, fmt.Errorf("paused destinations: %w", mapErr(ctx, err))
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var (
			name string
			at   int64
		)
		if err := rows.Scan(&name, &at); err != nil {
			return nil, fmt.Errorf("paused destinations: %w", mapErr(ctx, err))
		}
		out[name] = fromMicros(at)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("paused destinations: %w", mapErr(ctx, err))
	}
	return out, nil
}

// isPaused reports whether destination is paused; claims and NextDue ask.
// The caller holds s.mu.
func (s *Store) isPaused(ctx context.Context, destination string) (bool, error) {
	return s.paused.Paused(ctx, destination, s.readPaused)
}

// SkipDelivery makes a live delivery skipped and writes the audit row, in
// one transaction.
func (s *Store) SkipDelivery(ctx context.Context, id int64, actor string, now time.Time) (store.Delivery, error) {
	release, err := s.enter()
	if err != nil {
		return store.Delivery{}, fmt.Errorf("skip delivery %d: %w", id, err)
	}
	defer release()
	d, err := s.skip(ctx, id, actor, now)
	if err != nil {
		return store.Delivery{}, fmt.Errorf("skip delivery %d: %w", id, mapErr(ctx, err))
	}
	return d, nil
}

func (s *Store) skip(ctx context.Context, id int64, actor string, now time.Time) (store.Delivery, error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return store.Delivery{}, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, skipDelivery, micros(now), sqlstore.SkipNote(actor), id)
	if err != nil {
		return store.Delivery{}, err
	}
	var d store.Delivery
	found := rows.Next()
	if found {
		d, err = scanDelivery(rows)
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return store.Delivery{}, err
	}
	if !found {
		var n int
		if err := tx.QueryRowContext(ctx, deliveryExists, id).Scan(&n); err != nil {
			return store.Delivery{}, err
		}
		if n == 0 {
			return store.Delivery{}, store.ErrNotFound
		}
		return store.Delivery{}, store.ErrFinal
	}
	if _, err := tx.ExecContext(ctx, insertAction, micros(now), actor, sqlstore.AuditDelivery(d), store.AuditSkip); err != nil {
		return store.Delivery{}, err
	}
	return d, tx.Commit()
}

// AuditLog returns the audit rows from since on, newest first.
func (s *Store) AuditLog(ctx context.Context, since time.Time, limit int) ([]store.AuditEntry, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer release()
	rows, err := s.reader.QueryContext(ctx, selectAudit, micros(since), limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", mapErr(ctx, err))
	}
	defer rows.Close()
	out := []store.AuditEntry{}
	for rows.Next() {
		var (
			e  store.AuditEntry
			at int64
		)
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Kind, &e.Detail, &e.Matched, &e.Rearmed, &e.InFlight, &e.Created, &e.Purged, &e.DryRun); err != nil {
			return nil, fmt.Errorf("audit log: %w", mapErr(ctx, err))
		}
		e.At = fromMicros(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit log: %w", mapErr(ctx, err))
	}
	return out, nil
}
