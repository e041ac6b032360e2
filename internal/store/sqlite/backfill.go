package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// BackfillCandidates returns up to limit events of sources received in
// [since, until), with ids after after (empty for the start), oldest
// first, that have no delivery to destination, without their bodies and
// headers. No sources, or a limit below 1, select nothing.
func (s *Store) BackfillCandidates(ctx context.Context, destination string, sources []string, since, until time.Time, after string, limit int) ([]store.EventSummary, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("backfill candidates for %s: %w", destination, err)
	}
	defer release()
	if len(sources) == 0 || limit < 1 || !since.Before(until) {
		return make([]store.EventSummary, 0), nil
	}
	from, before := sqlstore.IDRange(since, until)
	events, err := s.listPage(ctx, backfillCandidates,
		[]any{jsonArray(sources), after, from, before, micros(since), micros(until), destination, limit}, limit)
	if err != nil {
		return nil, fmt.Errorf("backfill candidates for %s: %w", destination, mapErr(ctx, err))
	}
	return events, nil
}

// EventBodies returns the bodies of the events ids, by id.
func (s *Store) EventBodies(ctx context.Context, ids []string) (map[string][]byte, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("read event bodies: %w", err)
	}
	defer release()
	bodies := make(map[string][]byte, len(ids))
	if len(ids) == 0 {
		return bodies, nil
	}
	rows, err := s.reader.QueryContext(ctx, selectBodies, jsonArray(ids))
	if err != nil {
		return nil, fmt.Errorf("read event bodies: %w", mapErr(ctx, err))
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id    string
			body  []byte
			keyID *string
		)
		if err := rows.Scan(&id, &body, &keyID); err != nil {
			return nil, fmt.Errorf("read event bodies: %w", mapErr(ctx, err))
		}
		if bodies[id], err = s.payloads.OpenBody(id, body, keyID); err != nil {
			return nil, fmt.Errorf("read event bodies: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read event bodies: %w", mapErr(ctx, err))
	}
	return bodies, nil
}

// CreateDeliveries inserts, in one statement, pending deliveries due at
// now (the current time when zero), ordered by their events' occurred_at
// (received_at when absent), skipping any (event, destination) that
// exists and any event that does not (pruned meanwhile), and returns how
// many it created.
func (s *Store) CreateDeliveries(ctx context.Context, ds []store.BackfillDelivery, now time.Time) (int64, error) {
	release, err := s.enter()
	if err != nil {
		return 0, fmt.Errorf("create deliveries: %w", err)
	}
	defer release()
	if len(ds) == 0 {
		return 0, nil
	}
	if now.IsZero() {
		now = time.Now()
	}
	triples := make([][3]string, len(ds))
	for i, d := range ds {
		triples[i] = [3]string{d.EventID, d.Destination, store.OrderingKey(d.OrderingKey)}
	}
	b, _ := json.Marshal(triples) // cannot fail for strings
	res, err := s.writer.ExecContext(ctx, createDeliveries, string(b), micros(now))
	if err != nil {
		return 0, fmt.Errorf("create deliveries: %w", mapErr(ctx, err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("create deliveries: %w", err)
	}
	return n, nil
}

// RecordBackfill writes the audit row of a backfill: kind 'backfill', the
// destination and window as its filter, and created.
func (s *Store) RecordBackfill(ctx context.Context, actor, destination string, since, until time.Time, created int64, dryRun bool, now time.Time) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("record backfill of %s: %w", destination, err)
	}
	defer release()
	if now.IsZero() {
		now = time.Now()
	}
	filter := sqlstore.AuditBackfill(destination, since, until)
	if _, err := s.writer.ExecContext(ctx, recordBackfill, micros(now), actor, filter, dryRun, created); err != nil {
		return fmt.Errorf("record backfill of %s: %w", destination, mapErr(ctx, err))
	}
	return nil
}
