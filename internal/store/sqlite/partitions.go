package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// SupportsPartitions is false: a SQLite database is one file, and its
// event log is pruned row by row.
func (s *Store) SupportsPartitions() bool { return false }

// Partitioned is false: a SQLite event log is never partitioned.
func (s *Store) Partitioned(ctx context.Context) (bool, error) {
	release, err := s.enter()
	if err != nil {
		return false, fmt.Errorf("partitioned: %w", err)
	}
	release()
	return false, nil
}

// EnablePartitions fails with an error wrapping store.ErrNotSupported.
func (s *Store) EnablePartitions(ctx context.Context, period store.PartitionPeriod, now time.Time, progress func(string)) error {
	return s.noPartitions("enable partitions")
}

// MaintainPartitions fails with an error wrapping store.ErrNotSupported.
func (s *Store) MaintainPartitions(ctx context.Context, req store.PartitionRequest) (store.PartitionReport, error) {
	return store.PartitionReport{}, s.noPartitions("maintain partitions")
}

// ListPartitions fails with an error wrapping store.ErrNotSupported.
func (s *Store) ListPartitions(ctx context.Context) ([]store.Partition, error) {
	return nil, s.noPartitions("list partitions")
}

// noPartitions returns the error of a partition call named what: after
// Close, one wrapping store.ErrUnavailable.
func (s *Store) noPartitions(what string) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	release()
	return fmt.Errorf("%s: %w: a SQLite event log is not partitioned", what, store.ErrNotSupported)
}
