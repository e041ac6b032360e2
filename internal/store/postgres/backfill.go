package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// BackfillCandidates returns up to limit events of sources received in
// [since, until), with ids after after (empty for the start), oldest
// first, that have no delivery to destination, without their bodies and
// headers. No sources, or a limit below 1, select nothing.
func (s *Store) BackfillCandidates(ctx context.Context, destination string, sources []string, since, until time.Time, after string, limit int) ([]store.EventSummary, error) {
	events := make([]store.EventSummary, 0)
	if len(sources) == 0 || limit < 1 || !since.Before(until) {
		return events, nil
	}
	from, before := sqlstore.IDRange(since, until)
	rows, err := s.other.Query(ctx, backfillCandidates, sources, after, from, before, destination, limit, since, until)
	if err != nil {
		return nil, fmt.Errorf("backfill candidates for %s: %w", destination, s.mapErr(ctx, err))
	}
	if events, err = pgx.AppendRows(events, rows, scanSummary); err != nil {
		return nil, fmt.Errorf("backfill candidates for %s: %w", destination, s.mapErr(ctx, err))
	}
	return events, nil
}

// EventBodies returns the bodies of the events ids, by id.
func (s *Store) EventBodies(ctx context.Context, ids []string) (map[string][]byte, error) {
	bodies := make(map[string][]byte, len(ids))
	if len(ids) == 0 {
		return bodies, nil
	}
	rows, err := s.other.Query(ctx, selectBodies, ids)
	if err != nil {
		return nil, fmt.Errorf("read event bodies: %w", s.mapErr(ctx, err))
	}
	var (
		id    string
		body  []byte
		keyID *string
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &body, &keyID}, func() error {
		b, err := s.payloads.OpenBody(id, body, keyID)
		bodies[id] = b
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read event bodies: %w", s.mapErr(ctx, err))
	}
	return bodies, nil
}

// CreateDeliveries inserts pending deliveries due at now (the current
// time when zero), ordered by their events' occurred_at (received_at when
// absent), skipping any (event, destination) that exists and any event
// that does not (pruned meanwhile), and returns how many it created. The
// transaction notifies the listeners of the destinations given rows.
func (s *Store) CreateDeliveries(ctx context.Context, ds []store.BackfillDelivery, now time.Time) (int64, error) {
	if len(ds) == 0 {
		return 0, nil
	}
	if now.IsZero() {
		now = time.Now()
	}
	events := make([]string, len(ds))
	dests := make([]string, len(ds))
	keys := make([]string, len(ds))
	for i, d := range ds {
		events[i], dests[i], keys[i] = d.EventID, d.Destination, store.OrderingKey(d.OrderingKey)
	}
	var created int64
	err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, createDeliveries, events, dests, keys, now)
		if err != nil {
			return err
		}
		if created = tag.RowsAffected(); created == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, notifyDestinations, distinct(dests))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("create deliveries: %w", s.mapErr(ctx, err))
	}
	return created, nil
}

// distinct returns the distinct values of vs, in order.
func distinct(vs []string) []string {
	seen := make(map[string]bool, len(vs))
	out := vs[:0:0]
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// RecordBackfill writes the audit row of a backfill: kind 'backfill', the
// destination and window as its filter, and created.
func (s *Store) RecordBackfill(ctx context.Context, actor, destination string, since, until time.Time, created int64, dryRun bool, now time.Time) error {
	if now.IsZero() {
		now = time.Now()
	}
	filter := sqlstore.AuditBackfill(destination, since, until)
	if _, err := s.other.Exec(ctx, recordBackfill, now, actor, filter, dryRun, created); err != nil {
		return fmt.Errorf("record backfill of %s: %w", destination, s.mapErr(ctx, err))
	}
	return nil
}
