package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

// dropPeriod retires the partitions of r in one transaction, then drops
// their tables, unless they hold a live delivery: then it returns the
// partition with the live deliveries' counts and dropped false, having
// changed nothing.
//
// The transaction first takes the exclusive side of the retire lock
// (retireExclusive), which waits for the replays and backfills under way
// and holds off those that start: nothing else makes a finished delivery
// live again or gives a stored event a new delivery, and claims,
// outcomes, skips and purges change live deliveries alone, so once the
// partition is found to hold none, its deliveries keep their statuses
// while it runs. Then, taking no lock that holds off ingest, claims or
// outcomes: it counts them and subtracts those counts from the delivery
// and failure counts (a DROP fires no delete trigger), and deletes the
// events' dedupe keys, by the range of their ids, and the signature
// digests they hold. Last it locks the parents (ACCESS EXCLUSIVE, which
// detaching a partition takes anyway), checks once more that no live
// delivery came in — a receiver whose clock is behind by more than the
// retention writes into old partitions — and detaches the three tables:
// every statement on the event log waits for that lock, a few
// milliseconds once granted, at most dropLockTimeout until it is. Once
// it commits, they are dropped (see dropDetached); a drop cut short
// there is finished by the next pass (see dropLeftovers).
//
// A receiver that far behind which also completes a delivery it stored
// there within the few seconds of the drop is the one case left out: its
// counts stay one too high.
func (s *Store) dropPeriod(ctx context.Context, r partitionRange) (store.Partition, bool, error) {
	p := r.partition()
	deliveries := s.table("deliveries", r.name)
	var locking time.Time
	err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		for _, stmt := range []string{dropLockTimeout, retireExclusive} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		var err error
		if p.Live, err = s.liveIn(ctx, tx, deliveries); err != nil || len(p.Live) > 0 {
			return orErr(err, errLive)
		}
		if err := tx.QueryRow(ctx, s.sql.SQL(fmt.Sprintf(subtractCounts, deliveries))).Scan(&p.Deliveries); err != nil {
			return fmt.Errorf("subtract counts: %w", err)
		}
		tag, err := tx.Exec(ctx, s.sql.SQL(deleteRangeKeys), r.from, r.to)
		if err != nil {
			return fmt.Errorf("delete keys: %w", err)
		}
		p.Events = tag.RowsAffected()
		if _, err := tx.Exec(ctx, s.sql.SQL(fmt.Sprintf(deletePartitionDigests, s.table("events", r.name)))); err != nil {
			return fmt.Errorf("delete signature digests: %w", err)
		}
		locking = time.Now()
		if _, err := tx.Exec(ctx, s.sql.SQL(lockParents)); err != nil {
			return err
		}
		if p.Live, err = s.liveIn(ctx, tx, deliveries); err != nil || len(p.Live) > 0 {
			return orErr(err, errLive)
		}
		for _, t := range partitionedTables {
			stmt := fmt.Sprintf("ALTER TABLE %s DETACH PARTITION %s", s.sql.SQL("hookrelay."+t.name), s.table(t.name, r.name))
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, errLive):
		return p, false, nil
	case err != nil:
		return p, false, err
	}
	p.Locked = time.Since(locking)
	return p, true, s.dropDetached(ctx, r.name)
}

// dropDetached drops the tables of partition name, detached from the
// parents. Their files are removed as the DROP commits, a time that
// grows with their size (a third of a second a GB here): detached, they
// hold no lock any other statement waits for.
func (s *Store) dropDetached(ctx context.Context, name string) error {
	_, err := s.other.Exec(ctx, fmt.Sprintf("DROP TABLE IF EXISTS %s, %s, %s",
		s.table("attempts", name), s.table("deliveries", name), s.table("events", name)))
	return err
}

// liveIn counts the live deliveries of a deliveries partition, by
// destination and status; nil when it has none.
func (s *Store) liveIn(ctx context.Context, tx pgx.Tx, deliveries string) (map[string]map[store.DeliveryStatus]int64, error) {
	rows, err := tx.Query(ctx, fmt.Sprintf(selectLive, deliveries))
	if err != nil {
		return nil, fmt.Errorf("find live deliveries: %w", err)
	}
	var live map[string]map[store.DeliveryStatus]int64
	_, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (struct{}, error) {
		var (
			dest   string
			status store.DeliveryStatus
			n      int64
		)
		if err := row.Scan(&dest, &status, &n); err != nil {
			return struct{}{}, err
		}
		if live == nil {
			live = map[string]map[store.DeliveryStatus]int64{}
		}
		if live[dest] == nil {
			live[dest] = map[store.DeliveryStatus]int64{}
		}
		live[dest][status] = n
		return struct{}{}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("find live deliveries: %w", err)
	}
	return live, nil
}

// orErr returns err, or else alt.
func orErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}
