package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// errPartitioned reports a conversion of an event log that is
// partitioned already.
var errPartitioned = errors.New("the event log is partitioned already")

// attemptsFillBatch is how many attempt ids one statement of a
// conversion walks to fill in their event ids.
const attemptsFillBatch = 50_000

// keysCatchUp is how far before the start of its bulk copy a conversion
// copies the dedupe keys again, inside its last transaction, for the
// events committed meanwhile (an ingest that began before the copy).
const keysCatchUp = time.Hour

// EnablePartitions partitions the event log by period (see
// store.Partitions). It holds a session advisory lock from its first
// step to its last, so that processes converting at once convert once,
// and takes an exclusive lock on the event log only in its last step,
// which reads no table whole:
//
//  1. it fills in the event id of the attempts written before migration
//     0038, a batch of ids per statement, and deletes any attempt whose
//     delivery is gone;
//  2. it adds to events, deliveries and attempts a CHECK constraint that
//     their ids (event ids) lie below the end of now's period, NOT VALID,
//     then validates each, which reads the table under a lock that lets
//     reads and writes go on;
//  3. it copies every event's dedupe key into a new table, and indexes
//     it;
//  4. in one transaction that locks the three tables: it copies the keys
//     of the events stored since step 3 began, makes the new table
//     event_keys in place of the view, renames each table to
//     NAME_before_TIME and creates in its place a partitioned table
//     alike (columns, defaults, identity past the table's ids, indexes,
//     triggers), attaches the table as the partition of everything below
//     the bound (the constraint of step 2 proves its rows belong, so
//     nothing is read), its indexes as the partitions of the parent's,
//     and creates the DEFAULT partitions and those of the periods ahead.
//
// Events stored from then on go to the partitions of their periods. The
// relays should be stopped while it runs: one still running an earlier
// version fails its ingests after step 4 (and its attempts written
// before it fail step 2); one of this version notices the new layout at
// its next ingest.
func (s *Store) EnablePartitions(ctx context.Context, period store.PartitionPeriod, now time.Time, progress func(string)) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("enable partitions: %w", err)
	}
	defer release()
	if err := s.enablePartitions(ctx, period, now, progress); err != nil {
		return fmt.Errorf("enable partitions: %w", s.mapErr(ctx, err))
	}
	return nil
}

// enablePartitions is EnablePartitions within a call the store admitted.
func (s *Store) enablePartitions(ctx context.Context, period store.PartitionPeriod, now time.Time, progress func(string)) error {
	if period.Length() == 0 {
		return fmt.Errorf("no period")
	}
	if now.IsZero() {
		now = time.Now()
	}
	if progress == nil {
		progress = func(string) {}
	}
	conn, err := s.other.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, lockConvert, convertLockKey); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), unlockConvert, convertLockKey) //nolint:errcheck // the session ends the lock too
	// Every statement goes through conn: with a pool of one connection,
	// another would wait for it forever.
	if err := s.readLayoutOn(ctx, conn); err != nil {
		return err
	}
	if s.partitioned.Load() {
		return errPartitioned
	}
	if err := s.checkMigrated(ctx, conn); err != nil {
		return err
	}
	c := conversion{s: s, conn: conn.Conn(), period: period, now: now, progress: progress,
		bound: period.Start(now).Add(period.Length())}
	if err := c.run(ctx); err != nil {
		return err
	}
	if err := s.readLayoutOn(ctx, conn); err != nil {
		return err
	}
	s.logger.Info("event log partitioned", "period", string(period), "bound", c.bound)
	return nil
}

// checkMigrated fails unless every migration is applied, as read on q:
// a conversion partitions the tables as the last migration left them.
func (s *Store) checkMigrated(ctx context.Context, q querier) error {
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		return err
	}
	rows, err := q.Query(ctx, s.sql.SQL(selectMigrations))
	if err != nil {
		return err
	}
	done, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return err
	}
	var pending []string
	for _, m := range ms {
		if !slices.Contains(done, m.Version) {
			pending = append(pending, m.Name)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("migrations %s are not applied: migrate first", strings.Join(pending, ", "))
	}
	return nil
}

// conversion is one run of EnablePartitions, on one connection.
type conversion struct {
	s        *Store
	conn     *pgx.Conn
	period   store.PartitionPeriod
	now      time.Time
	bound    time.Time // the end of now's period: the rows stored so far lie below it
	progress func(string)
}

// run runs the steps of EnablePartitions in turn.
func (c *conversion) run(ctx context.Context) error {
	bound := idAt(c.bound)
	var beyond int64
	if err := c.conn.QueryRow(ctx, c.s.sql.SQL(`SELECT count(*) FROM hookrelay.events WHERE id >= $1`), bound).Scan(&beyond); err != nil {
		return err
	}
	if beyond > 0 {
		return fmt.Errorf("%d events have ids at or above %s, the end of the current period: ids that are not "+
			"the ULIDs of their receive time, or a receive time in the future; the rows stored so far must lie below it", beyond, bound)
	}
	c.progress("fill in the event ids of the attempts")
	if err := c.fillAttempts(ctx); err != nil {
		return fmt.Errorf("fill in the event ids of the attempts: %w", err)
	}
	c.progress("check that the rows stored lie below " + c.bound.UTC().Format(time.RFC3339))
	if err := c.checkBound(ctx, bound); err != nil {
		return fmt.Errorf("check the bound: %w", err)
	}
	c.progress("copy the dedupe keys")
	began, err := c.copyKeys(ctx)
	if err != nil {
		return fmt.Errorf("copy the dedupe keys: %w", err)
	}
	c.progress("partition the tables")
	if err := pgx.BeginFunc(ctx, c.conn, func(tx pgx.Tx) error { return c.partition(ctx, tx, began) }); err != nil {
		return fmt.Errorf("partition the tables: %w", err)
	}
	c.progress("analyze")
	_, err = c.conn.Exec(ctx, c.s.sql.SQL(analyzeParents))
	return err
}

// exec runs statements in turn on the conversion's connection (each its
// own transaction) or in tx, with hookrelay.NAME naming the store's
// tables.
func (c *conversion) exec(ctx context.Context, q querier, statements ...string) error {
	for _, st := range statements {
		if _, err := q.Exec(ctx, c.s.sql.SQL(st)); err != nil {
			return fmt.Errorf("%s: %w", strings.SplitN(st, "\n", 2)[0], err)
		}
	}
	return nil
}

// fillAttempts sets the event id of the attempts that have none (written
// before migration 0038) from their deliveries, attemptsFillBatch ids a
// statement, and deletes those whose delivery is gone, which nothing
// reads.
func (c *conversion) fillAttempts(ctx context.Context) error {
	var high int64
	if err := c.conn.QueryRow(ctx, c.s.sql.SQL(`SELECT coalesce(max(id), 0) FROM hookrelay.attempts`)).Scan(&high); err != nil {
		return err
	}
	for lo := int64(0); lo < high; lo += attemptsFillBatch {
		for _, st := range []string{fillAttemptEvents, deleteOrphanAttempts} {
			if _, err := c.conn.Exec(ctx, c.s.sql.SQL(st), lo, lo+attemptsFillBatch); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkBound adds and validates the constraints that the rows stored lie
// below bound (see EnablePartitions, step 2).
func (c *conversion) checkBound(ctx context.Context, bound string) error {
	for _, t := range partitionedTables {
		table, name := c.s.sql.SQL("hookrelay."+t.name), t.name+"_partition_bound"
		check := fmt.Sprintf("%s < %s", t.key, literal(bound))
		if t.name == "attempts" {
			check = "event_id IS NOT NULL AND " + check
		}
		err := c.exec(ctx, c.conn,
			fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT IF EXISTS %s", table, name),
			fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s CHECK (%s) NOT VALID", table, name, check),
			fmt.Sprintf("ALTER TABLE %s VALIDATE CONSTRAINT %s", table, name))
		if err != nil {
			return err
		}
	}
	return nil
}

// copyKeys copies every event's dedupe key into event_keys_new, and
// returns when it began.
func (c *conversion) copyKeys(ctx context.Context) (time.Time, error) {
	var began time.Time
	if err := c.conn.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&began); err != nil {
		return time.Time{}, err
	}
	return began, c.exec(ctx, c.conn, dropNewKeys, createNewKeys, copyAllKeys, keyNewKeys, indexNewKeys)
}

// partition is step 4 of EnablePartitions, in tx.
func (c *conversion) partition(ctx context.Context, tx pgx.Tx, keysBegan time.Time) error {
	if err := c.exec(ctx, tx, `LOCK TABLE hookrelay.events, hookrelay.deliveries, hookrelay.attempts IN ACCESS EXCLUSIVE MODE`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, c.s.sql.SQL(catchUpKeys), idAt(keysBegan.Add(-keysCatchUp))); err != nil {
		return fmt.Errorf("copy the latest keys: %w", err)
	}
	if err := c.exec(ctx, tx, takeKeys...); err != nil {
		return err
	}
	before := beforeRange(c.bound)
	for _, t := range partitionedTables {
		if err := c.partitionTable(ctx, tx, t.name, t.key, before); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	if err := c.exec(ctx, tx, partitionedTriggers...); err != nil {
		return err
	}
	if err := c.s.createPartitions(ctx, tx, partitionRange{name: defaultPartition}); err != nil {
		return fmt.Errorf("create the default partitions: %w", err)
	}
	for _, r := range wanted(c.period, c.now, before.to, time.Time{}) {
		if err := c.s.createPartitions(ctx, tx, r); err != nil {
			return fmt.Errorf("create partition %s: %w", r.name, err)
		}
	}
	return nil
}

// tableIndex is an index of a table being partitioned, as the catalog
// describes it before the table is renamed.
type tableIndex struct {
	name, def     string // pg_get_indexdef: CREATE INDEX name ON table …
	constraint    string // pg_get_constraintdef of a PRIMARY KEY or UNIQUE constraint, or ""
	unique, onKey bool   // unique; holds the partition key
}

// partitionTable makes the table name a partition of a new partitioned
// table of the same name, by RANGE (key), of everything below before.to.
func (c *conversion) partitionTable(ctx context.Context, tx pgx.Tx, name, key string, before partitionRange) error {
	parent, legacy := c.s.sql.SQL("hookrelay."+name), c.s.table(name, before.name)
	indexes, triggers, err := c.describe(ctx, tx, name, key)
	if err != nil {
		return err
	}
	renames := []string{fmt.Sprintf("ALTER TABLE %s RENAME TO %s", parent, pgx.Identifier{name + "_" + before.name}.Sanitize())}
	for _, ix := range indexes {
		renames = append(renames, fmt.Sprintf("ALTER INDEX %s RENAME TO %s",
			pgx.Identifier{c.s.tables.Schema(), ix.name}.Sanitize(), pgx.Identifier{indexName(ix.name, before.name)}.Sanitize()))
	}
	for tg := range triggers {
		renames = append(renames, fmt.Sprintf("DROP TRIGGER %s ON %s", pgx.Identifier{tg}.Sanitize(), legacy))
	}
	renames = append(renames,
		fmt.Sprintf("CREATE TABLE %s (LIKE %s INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMPRESSION INCLUDING GENERATED) PARTITION BY RANGE (%s)",
			parent, legacy, key))
	if err := c.exec(ctx, tx, renames...); err != nil {
		return err
	}
	if name != "events" {
		// The parent's identity starts past every id the table's has
		// handed out.
		var next int64
		if err := tx.QueryRow(ctx, fmt.Sprintf("SELECT nextval(pg_get_serial_sequence(%s, 'id'))", literal(legacy))).Scan(&next); err != nil {
			return fmt.Errorf("read the identity: %w", err)
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN id RESTART WITH %d", parent, next)); err != nil {
			return err
		}
	}
	attach := []string{fmt.Sprintf("ALTER TABLE %s ATTACH PARTITION %s %s", parent, legacy, before.values())}
	for _, ix := range indexes {
		switch {
		case ix.unique && !ix.onKey:
			// The partition keeps it as its own: the primary key (id)
			// of deliveries and attempts, which each partition has; the
			// events' (source, provider_event_id), which event_keys
			// replaces.
		case ix.constraint != "":
			attach = append(attach, fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s %s", parent, pgx.Identifier{ix.name}.Sanitize(), ix.constraint))
		default:
			attach = append(attach, ix.def) // names the parent: the legacy table had its name
		}
	}
	for _, def := range triggers {
		if strings.Contains(def, "delete_referencing(") {
			continue // replaced by partitionedTriggers
		}
		attach = append(attach, def)
	}
	return c.exec(ctx, tx, attach...)
}

// describe returns the indexes of table name, whose partition key is
// key, and the definitions of its triggers by name.
func (c *conversion) describe(ctx context.Context, tx pgx.Tx, name, key string) ([]tableIndex, map[string]string, error) {
	rows, err := tx.Query(ctx, c.s.sql.SQL(selectTableIndexes), c.s.sql.SQL("hookrelay."+name), key)
	if err != nil {
		return nil, nil, err
	}
	indexes, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (tableIndex, error) {
		var ix tableIndex
		return ix, row.Scan(&ix.name, &ix.def, &ix.constraint, &ix.unique, &ix.onKey)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read the indexes: %w", err)
	}
	rows, err = tx.Query(ctx, selectTableTriggers, c.s.sql.SQL("hookrelay."+name))
	triggers, err := collectMap[string, string](rows, err)
	if err != nil {
		return nil, nil, fmt.Errorf("read the triggers: %w", err)
	}
	return indexes, triggers, nil
}

// indexName returns the name an index of the table partitioned takes:
// its own with the partition's suffix, within PostgreSQL's 63 bytes.
func indexName(index, partition string) string {
	n := index + "_" + partition
	if len(n) > 63 {
		n = index[:63-len(partition)-1] + "_" + partition
	}
	return n
}
