package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.Signals = (*Store)(nil)

const (
	// countSlot adds one count to its hour, keeping the latest time.
	countSlot = `INSERT INTO secret_slot_hours (source, slot, hour, verified, last_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (source, slot, hour) DO UPDATE SET
			verified = verified + excluded.verified,
			last_at = max(last_at, excluded.last_at)`
	// pruneSlotHours deletes hours past their keep; the table holds a row
	// per source, slot and hour, so the scan is small.
	pruneSlotHours = `DELETE FROM secret_slot_hours WHERE hour < ?`
	// slotUsage sums the hours from a given one and finds the latest use.
	slotUsage = `SELECT source, slot, max(last_at),
			coalesce(sum(CASE WHEN hour >= ? THEN verified END), 0)
		FROM secret_slot_hours GROUP BY source, slot ORDER BY source, slot`
	// recentEventTimes reads the newest events of a source by its
	// (source, id) index, then drops those without a provider time, so a
	// scheme that never gives one costs limit rows, not the whole source.
	recentEventTimes = `SELECT occurred_at, received_at FROM (
			SELECT occurred_at, received_at, id FROM events
			WHERE source = ? ORDER BY id DESC LIMIT ?)
		WHERE occurred_at IS NOT NULL ORDER BY id DESC`
)

// hourOf is the start of t's hour, UTC.
func hourOf(t time.Time) time.Time { return t.UTC().Truncate(time.Hour) }

// CountSlots adds counts to their hours and deletes hours past their keep,
// in one transaction.
func (s *Store) CountSlots(ctx context.Context, counts []store.SlotCount, now time.Time) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("count slots: %w", err)
	}
	defer release()
	if len(counts) == 0 {
		return nil
	}
	if err := s.countSlots(ctx, counts, now); err != nil {
		return fmt.Errorf("count slots: %w", mapErr(ctx, err))
	}
	return nil
}

func (s *Store) countSlots(ctx context.Context, counts []store.SlotCount, now time.Time) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, c := range counts {
		if _, err := tx.ExecContext(ctx, countSlot, c.Source, c.Slot, micros(hourOf(c.Last)), c.Verified, micros(c.Last)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, pruneSlotHours, micros(hourOf(now.Add(-store.SlotUsageKeep)))); err != nil {
		return err
	}
	return tx.Commit()
}

// SlotUsage reports every kept slot's latest use and its count since.
func (s *Store) SlotUsage(ctx context.Context, since time.Time) ([]store.SlotUsage, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("slot usage: %w", err)
	}
	defer release()
	rows, err := s.reader.QueryContext(ctx, slotUsage, micros(hourOf(since)))
	if err != nil {
		return nil, fmt.Errorf("slot usage: %w", mapErr(ctx, err))
	}
	defer rows.Close()
	out := []store.SlotUsage{}
	for rows.Next() {
		var (
			u    store.SlotUsage
			last int64
		)
		if err := rows.Scan(&u.Source, &u.Slot, &last, &u.Verified); err != nil {
			return nil, fmt.Errorf("slot usage: %w", mapErr(ctx, err))
		}
		u.LastVerified = fromMicros(last)
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("slot usage: %w", mapErr(ctx, err))
	}
	return out, nil
}

// RecentEventTimes returns the provider and receive times among a
// source's newest limit events.
func (s *Store) RecentEventTimes(ctx context.Context, source string, limit int) ([]store.EventTimes, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("recent event times: %w", err)
	}
	defer release()
	rows, err := s.reader.QueryContext(ctx, recentEventTimes, source, limit)
	if err != nil {
		return nil, fmt.Errorf("recent event times: %w", mapErr(ctx, err))
	}
	defer rows.Close()
	out := []store.EventTimes{}
	for rows.Next() {
		var occurred sql.NullInt64
		var received int64
		if err := rows.Scan(&occurred, &received); err != nil {
			return nil, fmt.Errorf("recent event times: %w", mapErr(ctx, err))
		}
		out = append(out, store.EventTimes{OccurredAt: fromNullMicros(occurred), ReceivedAt: fromMicros(received)})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recent event times: %w", mapErr(ctx, err))
	}
	return out, nil
}
