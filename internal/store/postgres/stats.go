package postgres

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Stats counts the deliveries of every destination that has any, by
// status (every status present, zeros included), with the age at now (the
// current time when zero) of its oldest due pending or failed delivery,
// and the ingest counts of every source that has any.
func (s *Store) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	if now.IsZero() {
		now = time.Now()
	}
	st := store.Stats{Destinations: map[string]store.DestinationStats{}, Sources: map[string]store.SourceStats{}}
	rows, err := s.other.Query(ctx, statsCounts)
	if err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", s.mapErr(ctx, err))
	}
	var (
		dest, status string
		n            int64
	)
	_, err = pgx.ForEachRow(rows, []any{&dest, &status, &n}, func() error {
		sqlstore.AddCount(st.Destinations, dest, store.DeliveryStatus(status), n)
		return nil
	})
	if err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", s.mapErr(ctx, err))
	}
	if err := s.oldestDue(ctx, st.Destinations, now); err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", err)
	}
	if err := s.sourceStats(ctx, st.Sources); err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}

// oldestDue sets the OldestPendingAge of dests at now, one index probe
// per destination.
func (s *Store) oldestDue(ctx context.Context, dests map[string]store.DestinationStats, now time.Time) error {
	if len(dests) == 0 {
		return nil
	}
	rows, err := s.other.Query(ctx, statsOldestDue, slices.Sorted(maps.Keys(dests)), now)
	if err != nil {
		return s.mapErr(ctx, err)
	}
	var (
		dest string
		at   *time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&dest, &at}, func() error {
		if at != nil {
			d := dests[dest]
			d.OldestPendingAge = max(now.Sub(*at), 0)
			dests[dest] = d
		}
		return nil
	})
	return s.mapErr(ctx, err)
}

// sourceStats reads the ingest counts into sources.
func (s *Store) sourceStats(ctx context.Context, sources map[string]store.SourceStats) error {
	rows, err := s.other.Query(ctx, statsSources)
	if err != nil {
		return s.mapErr(ctx, err)
	}
	var (
		name string
		c    store.SourceStats
	)
	_, err = pgx.ForEachRow(rows, []any{&name, &c.Received, &c.Duplicates, &c.Rejected}, func() error {
		sources[name] = c
		return nil
	})
	return s.mapErr(ctx, err)
}

// CountIngest adds counts to the sources' totals in one statement.
func (s *Store) CountIngest(ctx context.Context, counts map[string]store.SourceStats) error {
	if len(counts) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(counts))
	received := make([]int64, len(names))
	duplicates := make([]int64, len(names))
	rejected := make([]int64, len(names))
	for i, name := range names {
		c := counts[name]
		received[i], duplicates[i], rejected[i] = c.Received, c.Duplicates, c.Rejected
	}
	if _, err := s.other.Exec(ctx, countIngest, names, received, duplicates, rejected); err != nil {
		return fmt.Errorf("count ingest: %w", s.mapErr(ctx, err))
	}
	return nil
}
