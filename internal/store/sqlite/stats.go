package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Stats counts the deliveries of every destination that has any, by
// status (every status present, zeros included), with the age at now (the
// current time when zero) of its oldest due pending or failed delivery,
// and the ingest counts of every source that has any.
func (s *Store) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	release, err := s.enter()
	if err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", err)
	}
	defer release()
	if now.IsZero() {
		now = time.Now()
	}
	st := store.Stats{Destinations: map[string]store.DestinationStats{}, Sources: map[string]store.SourceStats{}}
	if err := s.statsCounts(ctx, st.Destinations); err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", mapErr(ctx, err))
	}
	if err := s.oldestDue(ctx, st.Destinations, now); err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", mapErr(ctx, err))
	}
	if err := s.sourceStats(ctx, st.Sources); err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", mapErr(ctx, err))
	}
	return st, nil
}

// statsCounts reads the deliveries' counts by destination and status
// into dests.
func (s *Store) statsCounts(ctx context.Context, dests map[string]store.DestinationStats) error {
	rows, err := s.reader.QueryContext(ctx, statsCounts)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			dest, status string
			n            int64
		)
		if err := rows.Scan(&dest, &status, &n); err != nil {
			return err
		}
		sqlstore.AddCount(dests, dest, store.DeliveryStatus(status), n)
	}
	return rows.Err()
}

// oldestDue sets the OldestPendingAge of dests at now, one index probe
// per destination.
func (s *Store) oldestDue(ctx context.Context, dests map[string]store.DestinationStats, now time.Time) error {
	for _, dest := range slices.Sorted(maps.Keys(dests)) {
		var at int64
		err := s.reader.QueryRowContext(ctx, statsOldestDue, dest, micros(now)).Scan(&at)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		d := dests[dest]
		d.OldestPendingAge = max(now.Sub(fromMicros(at)), 0)
		dests[dest] = d
	}
	return nil
}

// sourceStats reads the ingest counts into sources.
func (s *Store) sourceStats(ctx context.Context, sources map[string]store.SourceStats) error {
	rows, err := s.reader.QueryContext(ctx, statsSources)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name string
			c    store.SourceStats
		)
		if err := rows.Scan(&name, &c.Received, &c.Duplicates, &c.Rejected); err != nil {
			return err
		}
		sources[name] = c
	}
	return rows.Err()
}

// CountIngest adds counts to the sources' totals, one statement per
// source in one transaction.
func (s *Store) CountIngest(ctx context.Context, counts map[string]store.SourceStats) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("count ingest: %w", err)
	}
	defer release()
	if len(counts) == 0 {
		return nil
	}
	if err := s.countIngest(ctx, counts); err != nil {
		return fmt.Errorf("count ingest: %w", mapErr(ctx, err))
	}
	return nil
}

func (s *Store) countIngest(ctx context.Context, counts map[string]store.SourceStats) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, countIngest)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		c := counts[name]
		if _, err := stmt.ExecContext(ctx, name, c.Received, c.Duplicates, c.Rejected); err != nil {
			return err
		}
	}
	return tx.Commit()
}
