package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// SetPaused pauses or resumes destination and writes the audit row, in one
// transaction. A resume notifies the workers of every process, as new
// deliveries do, so that they claim again at once.
func (s *Store) SetPaused(ctx context.Context, destination string, paused bool, actor string, now time.Time) error {
	kind := store.AuditResume
	if paused {
		kind = store.AuditPause
	}
	err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		var err error
		if paused {
			_, err = tx.Exec(ctx, insertPaused, destination, now, actor)
		} else {
			_, err = tx.Exec(ctx, deletePaused, destination)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, insertAction, now, actor, sqlstore.AuditDestination(destination), kind); err != nil {
			return err
		}
		if !paused {
			_, err = tx.Exec(ctx, notifyDestinations, []string{destination})
		}
		return err
	})
	s.paused.Forget()
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, destination, s.mapErr(ctx, err))
	}
	return nil
}

// Paused returns the paused destinations.
func (s *Store) Paused(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.other.Query(ctx, listPaused)
	if err != nil {
		return nil, fmt.Errorf("paused destinations: %w", s.mapErr(ctx, err))
	}
	out := map[string]time.Time{}
	var (
		name string
		at   time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&name, &at}, func() error {
		out[name] = at.UTC()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("paused destinations: %w", s.mapErr(ctx, err))
	}
	return out, nil
}

// isPaused reports whether destination is paused; claims and NextDue ask.
func (s *Store) isPaused(ctx context.Context, destination string) (bool, error) {
	return s.paused.Paused(ctx, destination, s.Paused)
}

// SkipDelivery makes a live delivery skipped and writes the audit row, in
// one transaction.
func (s *Store) SkipDelivery(ctx context.Context, id int64, actor string, now time.Time) (store.Delivery, error) {
	var d store.Delivery
	err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, skipDelivery, now, sqlstore.SkipNote(actor), id)
		if err != nil {
			return err
		}
		d, err = pgx.CollectExactlyOneRow(rows, scanDelivery)
		if errors.Is(err, pgx.ErrNoRows) {
			var exists bool
			if err := tx.QueryRow(ctx, deliveryExists, id).Scan(&exists); err != nil {
				return err
			}
			if !exists {
				return store.ErrNotFound
			}
			return store.ErrFinal
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, insertAction, now, actor, sqlstore.AuditDelivery(d), store.AuditSkip)
		return err
	})
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrFinal) {
		return store.Delivery{}, fmt.Errorf("skip delivery %d: %w", id, err)
	}
	if err != nil {
		return store.Delivery{}, fmt.Errorf("skip delivery %d: %w", id, s.mapErr(ctx, err))
	}
	return d, nil
}

// AuditLog returns the audit rows from since on, newest first.
func (s *Store) AuditLog(ctx context.Context, since time.Time, limit int) ([]store.AuditEntry, error) {
	rows, err := s.other.Query(ctx, selectAudit, since, limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", s.mapErr(ctx, err))
	}
	out, err := pgx.AppendRows(make([]store.AuditEntry, 0), rows, func(row pgx.CollectableRow) (store.AuditEntry, error) {
		var e store.AuditEntry
		err := row.Scan(&e.ID, &e.At, &e.Actor, &e.Kind, &e.Detail, &e.Matched, &e.Rearmed, &e.InFlight, &e.Created, &e.Purged, &e.DryRun)
		e.At = e.At.UTC()
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", s.mapErr(ctx, err))
	}
	return out, nil
}
