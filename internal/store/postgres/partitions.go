package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.Partitions = (*Store)(nil)

// SupportsPartitions is true: PostgreSQL partitions the event log by time
// when asked (see EnablePartitions).
func (s *Store) SupportsPartitions() bool { return true }

// Partitioned tells whether the event log is partitioned, as the
// database says now.
func (s *Store) Partitioned(ctx context.Context) (bool, error) {
	release, err := s.enter()
	if err != nil {
		return false, fmt.Errorf("partitioned: %w", err)
	}
	defer release()
	if err := s.readLayout(ctx); err != nil {
		return false, fmt.Errorf("partitioned: %w", s.mapErr(ctx, err))
	}
	return s.partitioned.Load(), nil
}

// ListPartitions returns the range partitions, oldest first, then the
// DEFAULT one, with the planner's estimates of their events and
// deliveries.
func (s *Store) ListPartitions(ctx context.Context) ([]store.Partition, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", err)
	}
	defer release()
	ranges, def, err := s.partitionRanges(ctx, s.other)
	if err != nil {
		return nil, fmt.Errorf("list partitions: %w", s.mapErr(ctx, err))
	}
	var ps []store.Partition
	for _, r := range ranges {
		p := r.partition()
		p.Events, p.Deliveries = r.events, r.deliveries
		ps = append(ps, p)
	}
	if def != nil {
		ps = append(ps, store.Partition{Name: defaultPartition, Events: def.events, Deliveries: def.deliveries})
	}
	return ps, nil
}

// listedRange is a range partition as the catalog lists it, with the
// planner's estimates of its rows.
type listedRange struct {
	partitionRange
	events, deliveries int64
}

// partitionRanges returns the range partitions of events, oldest first,
// and the DEFAULT one (nil when there is none).
func (s *Store) partitionRanges(ctx context.Context, q querier) ([]listedRange, *listedRange, error) {
	rows, err := q.Query(ctx, s.sql.SQL(selectPartitions))
	if err != nil {
		return nil, nil, err
	}
	var (
		ranges []listedRange
		def    *listedRange
	)
	_, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (struct{}, error) {
		var (
			relname, expr string
			l             listedRange
		)
		if err := row.Scan(&relname, &expr, &l.events, &l.deliveries); err != nil {
			return struct{}{}, err
		}
		name := strings.TrimPrefix(relname, "events_")
		if expr == "DEFAULT" {
			l.name = name
			def = &l
			return struct{}{}, nil
		}
		r, ok := parseBound(name, expr)
		if !ok {
			return struct{}{}, fmt.Errorf("partition %s: bound %q is not one hookrelay makes", relname, expr)
		}
		l.partitionRange = r
		ranges = append(ranges, l)
		return struct{}{}, nil
	})
	slices.SortFunc(ranges, func(a, b listedRange) int { return cmp.Compare(a.to, b.to) })
	return ranges, def, err
}

// MaintainPartitions creates the partitions ahead and drops those past
// req.DropBefore that hold no live delivery (see store.Partitions); when
// it created any, it then analyzes the parents, whose own statistics
// autovacuum never gathers (it does each partition's), once a period.
func (s *Store) MaintainPartitions(ctx context.Context, req store.PartitionRequest) (store.PartitionReport, error) {
	var report store.PartitionReport
	release, err := s.enter()
	if err != nil {
		return report, fmt.Errorf("maintain partitions: %w", err)
	}
	defer release()
	if req.Period.Length() == 0 {
		return report, fmt.Errorf("maintain partitions: no period")
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if err := s.readLayout(ctx); err != nil {
		return report, fmt.Errorf("maintain partitions: %w", s.mapErr(ctx, err))
	}
	if !s.partitioned.Load() {
		return report, fmt.Errorf("maintain partitions: %w", store.ErrNotPartitioned)
	}
	err = s.maintain(ctx, req, &report)
	if err == nil && len(report.Created) > 0 {
		_, err = s.other.Exec(ctx, s.sql.SQL(analyzeParents))
	}
	if err != nil {
		return report, fmt.Errorf("maintain partitions: %w", s.mapErr(ctx, err))
	}
	return report, nil
}

// maintain creates the partitions ahead, then drops the expired ones,
// oldest first, into report.
func (s *Store) maintain(ctx context.Context, req store.PartitionRequest, report *store.PartitionReport) error {
	if err := s.dropLeftovers(ctx); err != nil {
		return fmt.Errorf("drop detached partitions: %w", err)
	}
	ranges, def, err := s.partitionRanges(ctx, s.other)
	if err != nil {
		return err
	}
	high := ""
	if len(ranges) > 0 {
		high = ranges[len(ranges)-1].to
	}
	for _, r := range wanted(req.Period, req.Now, high, req.DropBefore) {
		if err := s.createPeriod(ctx, r, def != nil); err != nil {
			return fmt.Errorf("create partition %s: %w", r.name, err)
		}
		report.Created = append(report.Created, r.partition())
	}
	if req.DropBefore.IsZero() {
		return nil
	}
	bound := idAt(req.DropBefore)
	for _, r := range ranges {
		if r.to > bound {
			break
		}
		p, dropped, err := s.dropPeriod(ctx, r.partitionRange)
		switch {
		case dropped:
			report.Dropped = append(report.Dropped, p)
		case err == nil:
			report.Waiting = append(report.Waiting, p)
		}
		if err != nil {
			return fmt.Errorf("drop partition %s: %w", r.name, err)
		}
	}
	return nil
}

// dropLeftovers drops the tables that a drop detached and did not drop:
// their counts, keys and digests went as they were detached.
func (s *Store) dropLeftovers(ctx context.Context) error {
	rows, err := s.other.Query(ctx, selectLeftovers, s.tables.Schema())
	if err != nil {
		return err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := s.dropDetached(ctx, name); err != nil {
			return err
		}
		s.logger.Warn("detached partition dropped", logPartition, name)
	}
	return nil
}

// table returns the partition of parent named name, quoted.
func (s *Store) table(parent, name string) string {
	return pgx.Identifier{s.tables.Schema(), parent + "_" + name}.Sanitize()
}

// createPeriod creates the partitions of r, in one transaction. Rows the
// DEFAULT partitions hold in r's range (events stored while no partition
// covered it) move into them first, partition to partition, so that no
// trigger counts them twice.
func (s *Store) createPeriod(ctx context.Context, r partitionRange, hasDefault bool) error {
	return pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, dropLockTimeout); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, s.sql.SQL(lockParents)); err != nil {
			return err
		}
		move := false
		if hasDefault {
			q := fmt.Sprintf(defaultHolds, s.table("events", defaultPartition))
			if err := tx.QueryRow(ctx, q, r.from, r.to).Scan(&move); err != nil {
				return err
			}
		}
		if !move {
			return s.createPartitions(ctx, tx, r)
		}
		return s.moveFromDefault(ctx, tx, r)
	})
}

// createPartitions creates, in tx, the partitions of r of every parent,
// with what a partition keeps for itself: the storage of events' bodies
// (migration 0003) and the primary key (id) of deliveries and attempts,
// which cannot be the parents' (it lacks their partition key; ids are
// unique by their identity sequence all the same).
func (s *Store) createPartitions(ctx context.Context, tx pgx.Tx, r partitionRange) error {
	bound := r.values()
	if r.name == defaultPartition {
		bound = "DEFAULT"
	}
	for _, t := range partitionedTables {
		name := s.table(t.name, r.name)
		stmt := fmt.Sprintf("CREATE TABLE %s PARTITION OF %s %s", name, s.sql.SQL("hookrelay."+t.name), bound)
		if t.name == "events" {
			stmt += " WITH (toast_tuple_target = 8160)"
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
		if t.name == "events" {
			continue
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf("ALTER TABLE %s ADD PRIMARY KEY (id)", name)); err != nil {
			return err
		}
	}
	return nil
}

// moveFromDefault creates, in tx, the partitions of r with the rows the
// DEFAULT partitions hold in its range: the DEFAULT partitions are
// detached, r's created, the rows moved, and the DEFAULT partitions
// attached again (which reads them, to check that they hold nothing of
// another range: they are small).
func (s *Store) moveFromDefault(ctx context.Context, tx pgx.Tx, r partitionRange) error {
	for _, t := range partitionedTables {
		stmt := fmt.Sprintf("ALTER TABLE %s DETACH PARTITION %s", s.sql.SQL("hookrelay."+t.name), s.table(t.name, defaultPartition))
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
	}
	if err := s.createPartitions(ctx, tx, r); err != nil {
		return err
	}
	for _, t := range partitionedTables {
		from, to := s.table(t.name, defaultPartition), s.table(t.name, r.name)
		moves := []string{
			fmt.Sprintf("INSERT INTO %s SELECT * FROM %s WHERE %s >= $1 AND %s < $2", to, from, t.key, t.key),
			fmt.Sprintf("DELETE FROM %s WHERE %s >= $1 AND %s < $2", from, t.key, t.key),
			fmt.Sprintf("ALTER TABLE %s ATTACH PARTITION %s DEFAULT", s.sql.SQL("hookrelay."+t.name), from),
		}
		for i, stmt := range moves {
			args := []any{r.from, r.to}
			if i == 2 {
				args = nil
			}
			if _, err := tx.Exec(ctx, stmt, args...); err != nil {
				return err
			}
		}
	}
	s.logger.Warn("rows moved from the default partitions", logPartition, r.name)
	return nil
}

// errLive ends a drop's transaction that found live deliveries.
var errLive = errors.New("live deliveries")
