package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.Signals = (*Store)(nil)

const (
	// countSlots adds the counts of parallel arrays to their hours, keeping
	// the latest time. Callers send one count per source and slot, so no
	// two rows of one statement update the same hour (which PostgreSQL
	// refuses).
	countSlots = `INSERT INTO secret_slot_hours AS h (source, slot, hour, verified, last_at)
		SELECT source, slot, date_trunc('hour', last_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', verified, last_at
		FROM unnest($1::text[], $2::int[], $3::bigint[], $4::timestamptz[]) AS c (source, slot, verified, last_at)
		ON CONFLICT (source, slot, hour) DO UPDATE SET
			verified = h.verified + excluded.verified,
			last_at = greatest(h.last_at, excluded.last_at)`
	// pruneSlotHours deletes hours past their keep; the table holds a row
	// per source, slot and hour, so the scan is small.
	pruneSlotHours = `DELETE FROM secret_slot_hours WHERE hour < $1`
	// slotUsage sums the hours from a given one and finds the latest use.
	slotUsage = `SELECT source, slot, max(last_at),
			coalesce(sum(verified) FILTER (WHERE hour >= $1), 0)
		FROM secret_slot_hours GROUP BY source, slot ORDER BY source, slot`
	// recentEventTimes reads the newest events of a source by its
	// (source, id) index, then drops those without a provider time, so a
	// scheme that never gives one costs limit rows, not the whole source.
	recentEventTimes = `SELECT occurred_at, received_at FROM (
			SELECT occurred_at, received_at, id FROM events
			WHERE source = $1 ORDER BY id DESC LIMIT $2) AS newest
		WHERE occurred_at IS NOT NULL ORDER BY id DESC`
)

// CountSlots adds counts to their hours and deletes hours past their keep,
// in one transaction.
func (s *Store) CountSlots(ctx context.Context, counts []store.SlotCount, now time.Time) error {
	if len(counts) == 0 {
		return nil
	}
	sources := make([]string, len(counts))
	slots := make([]int32, len(counts))
	verified := make([]int64, len(counts))
	last := make([]time.Time, len(counts))
	for i, c := range counts {
		sources[i], slots[i], verified[i], last[i] = c.Source, int32(c.Slot), c.Verified, c.Last.UTC()
	}
	err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, countSlots, sources, slots, verified, last); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, pruneSlotHours, now.Add(-store.SlotUsageKeep).UTC().Truncate(time.Hour))
		return err
	})
	if err != nil {
		return fmt.Errorf("count slots: %w", s.mapErr(ctx, err))
	}
	return nil
}

// SlotUsage reports every kept slot's latest use and its count since.
func (s *Store) SlotUsage(ctx context.Context, since time.Time) ([]store.SlotUsage, error) {
	rows, err := s.other.Query(ctx, slotUsage, since.UTC().Truncate(time.Hour))
	if err != nil {
		return nil, fmt.Errorf("slot usage: %w", s.mapErr(ctx, err))
	}
	out := []store.SlotUsage{}
	var (
		u    store.SlotUsage
		slot int32
	)
	_, err = pgx.ForEachRow(rows, []any{&u.Source, &slot, &u.LastVerified, &u.Verified}, func() error {
		u.Slot = int(slot)
		u.LastVerified = u.LastVerified.UTC()
		out = append(out, u)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("slot usage: %w", s.mapErr(ctx, err))
	}
	return out, nil
}

// RecentEventTimes returns the provider and receive times among a
// source's newest limit events.
func (s *Store) RecentEventTimes(ctx context.Context, source string, limit int) ([]store.EventTimes, error) {
	rows, err := s.other.Query(ctx, recentEventTimes, source, limit)
	if err != nil {
		return nil, fmt.Errorf("recent event times: %w", s.mapErr(ctx, err))
	}
	out := []store.EventTimes{}
	var t store.EventTimes
	_, err = pgx.ForEachRow(rows, []any{&t.OccurredAt, &t.ReceivedAt}, func() error {
		out = append(out, store.EventTimes{OccurredAt: t.OccurredAt.UTC(), ReceivedAt: t.ReceivedAt.UTC()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recent event times: %w", s.mapErr(ctx, err))
	}
	return out, nil
}
