package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/retention"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/postgres/postgrestest"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// pruneRetention is the retention of both rules in the prune benchmark:
// the seeded day is older than it, the partitions after it are not.
const pruneRetention = 30 * 24 * time.Hour

// pruneRow is one measurement of the prune command: retiring one day of
// deliveries by one method.
type pruneRow struct {
	// Method is "rows" (Prune, unpartitioned), "partitions" (the drop of
	// the day's partitions) or "convert" (EnablePartitions of the
	// unpartitioned log that holds the day, in place of a pass).
	Method     string        `json:"method"`
	Deliveries int64         `json:"deliveries"`
	Events     int64         `json:"events"`
	Seed       time.Duration `json:"seed_ns"`
	// Wall, WAL: the retention pass that retired the day.
	Wall time.Duration `json:"wall_ns"`
	WAL  int64         `json:"wal_bytes"`
	// Deleted is what the pass retired: events deleted row by row, or
	// held by the partitions dropped.
	Deleted int64 `json:"deleted_events"`
	// Locked is how long the event log's tables were locked against
	// every other statement: by the drop of the day's partitions, or by
	// the last step of the conversion.
	Locked time.Duration `json:"locked_ns"`
	// SizeBefore, SizeAfter: events, deliveries, attempts and event_keys
	// with their indexes and TOAST, before and after the pass.
	SizeBefore int64 `json:"size_before_bytes"`
	SizeAfter  int64 `json:"size_after_bytes"`
	// Vacuum, VacuumWAL, SizeVacuumed: the VACUUM of the three tables
	// that deleting rows leaves to autovacuum, and the size after it.
	Vacuum       time.Duration `json:"vacuum_ns"`
	VacuumWAL    int64         `json:"vacuum_wal_bytes"`
	SizeVacuumed int64         `json:"size_vacuumed_bytes"`
}

// runPrune measures, on PostgreSQL, retiring one day of deliveries past
// the retention: the row-level Prune on an unpartitioned event log, and
// the drop of the day's partitions on one partitioned by day.
func runPrune(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("prune", stderr)
	pgURL := fs.String("postgres-url", defaultPostgresURL, "PostgreSQL server on which scratch schemas are created and dropped")
	sizes := fs.String("deliveries", "1000000,5000000", "comma-separated numbers of deliveries in the day retired")
	dests := fs.Int("destinations", 4, "deliveries per event, each to a destination of its own")
	body := fs.Int("body", 512, "body size in bytes")
	methods := fs.String("methods", "rows,partitions,convert", "rows (Prune on one table), partitions (drop), convert (partitions enable)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var ns []int64
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < int64(*dests) {
			return fmt.Errorf("%w: --deliveries %q: want numbers of at least --destinations", errUsage, s)
		}
		ns = append(ns, n)
	}
	if *dests < 1 || *body < 1 {
		return fmt.Errorf("%w: --destinations and --body must be positive", errUsage)
	}
	destinations := make([]string, *dests)
	for i := range destinations {
		destinations[i] = fmt.Sprintf("dest%d", i)
	}
	var rows []pruneRow
	for _, n := range ns {
		for _, method := range strings.Split(*methods, ",") {
			if method != "rows" && method != "partitions" && method != "convert" {
				return fmt.Errorf("%w: --methods: unknown method %q", errUsage, method)
			}
			fmt.Fprintf(stderr, "prune: %d deliveries, %s\n", n, method)
			row, err := pruneOnce(ctx, *pgURL, method, n/int64(*dests), destinations, *body)
			if err != nil {
				return fmt.Errorf("%s, %d deliveries: %w", method, n, err)
			}
			rows = append(rows, row)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	printPrune(stdout, rows, *body)
	return nil
}

// pruneOnce seeds a fresh schema with one day of events 40 days old, on
// an event log partitioned by day or not, and retires it with one pass of
// the pruner, as the fleet's runner would.
func pruneOnce(ctx context.Context, serverURL, method string, events int64, destinations []string, body int) (pruneRow, error) {
	row := pruneRow{Method: method, Events: events, Deliveries: events * int64(len(destinations))}
	db, err := newBenchDB(ctx, "postgres", "", "", serverURL)
	if err != nil {
		return row, err
	}
	defer db.Drop(context.WithoutCancel(ctx)) //nolint:errcheck // a scratch schema
	st, err := storeopen.Open(ctx, db.URL(), slog.New(slog.DiscardHandler))
	if err != nil {
		return row, err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return row, fmt.Errorf("migrate: %w", err)
	}
	now := time.Now()
	day := store.PartitionsDaily.Start(now.Add(-pruneRetention - 10*24*time.Hour))
	opts := retention.Options{Store: st, Done: pruneRetention, Dead: pruneRetention, Now: func() time.Time { return now }}
	if method == "partitions" {
		// Partitioned the day before the seeded one, its partitions made
		// day after day since, as the runner makes them.
		if err := st.EnablePartitions(ctx, store.PartitionsDaily, day.Add(-time.Hour), nil); err != nil {
			return row, err
		}
		for at := day; at.Before(now); at = at.Add(24 * time.Hour) {
			if _, err := st.MaintainPartitions(ctx, store.PartitionRequest{Period: store.PartitionsDaily, Now: at}); err != nil {
				return row, err
			}
		}
		opts.Period, opts.Partitions = store.PartitionsDaily, st
	}
	// The day retired, and a tenth as many events of yesterday, kept,
	// whose rows lie after its in the tables' files, as newer rows do.
	began := time.Now()
	if err := postgrestest.SeedDay(ctx, db.URL(), day, events, destinations, body); err != nil {
		return row, err
	}
	if err := postgrestest.SeedDay(ctx, db.URL(), store.PartitionsDaily.Start(now.Add(-24*time.Hour)), max(events/10, 1), destinations, body); err != nil {
		return row, err
	}
	row.Seed = time.Since(began)
	stored, err := st.CountEvents(ctx, "")
	if err != nil {
		return row, err
	}
	conn, err := pgx.Connect(ctx, db.URL())
	if err != nil {
		return row, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// A checkpoint first, so that both methods write their first change
	// of each page in full, as they would at any time.
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return row, fmt.Errorf("checkpoint: %w", err)
	}
	if row.SizeBefore, err = pruneSize(ctx, conn); err != nil {
		return row, err
	}
	if method == "convert" {
		row.Wall, row.WAL, row.Locked, err = convertMeasured(ctx, conn, st, now)
		if err != nil {
			return row, fmt.Errorf("convert: %w", err)
		}
	} else {
		var logs bytes.Buffer
		opts.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
		row.Wall, row.WAL, err = walOf(ctx, conn, func() error {
			_, err := retention.New(opts).Prune(ctx)
			return err
		})
		if err != nil {
			return row, fmt.Errorf("prune: %w", err)
		}
		row.Locked = longestLock(logs.Bytes())
		left, err := st.CountEvents(ctx, "")
		if err != nil {
			return row, err
		}
		if row.Deleted = stored - left; row.Deleted != events {
			return row, fmt.Errorf("the pass retired %d events, want the %d of the day", row.Deleted, events)
		}
	}
	if row.SizeAfter, err = pruneSize(ctx, conn); err != nil {
		return row, err
	}
	row.Vacuum, row.VacuumWAL, err = walOf(ctx, conn, func() error {
		_, err := conn.Exec(ctx, "VACUUM events, deliveries, attempts") // the schema's, first on the search_path
		return err
	})
	if err != nil {
		return row, fmt.Errorf("vacuum: %w", err)
	}
	row.SizeVacuumed, err = pruneSize(ctx, conn)
	return row, err
}

// convertMeasured partitions st's event log by day, as of now, and
// returns how long it took, the WAL it wrote, and how long its last step,
// the one transaction that locks the tables, took.
func convertMeasured(ctx context.Context, conn *pgx.Conn, st store.DB, now time.Time) (time.Duration, int64, time.Duration, error) {
	var locking, analyzing time.Time
	took, wal, err := walOf(ctx, conn, func() error {
		return st.EnablePartitions(ctx, store.PartitionsDaily, now, func(step string) {
			switch step {
			case "partition the tables":
				locking = time.Now()
			case "analyze":
				analyzing = time.Now()
			}
		})
	})
	return took, wal, analyzing.Sub(locking), err
}

// longestLock returns the longest lock a drop held, as the pruner's JSON
// log lines of the partitions dropped report it.
func longestLock(logs []byte) time.Duration {
	var longest time.Duration
	for _, line := range bytes.Split(logs, []byte("\n")) {
		var l struct {
			Msg    string        `json:"msg"`
			Locked time.Duration `json:"locked"`
		}
		if json.Unmarshal(line, &l) == nil && l.Msg == "partition dropped" {
			longest = max(longest, l.Locked)
		}
	}
	return longest
}

// walOf runs fn and returns how long it took and how much WAL the server
// wrote meanwhile.
func walOf(ctx context.Context, conn *pgx.Conn, fn func() error) (time.Duration, int64, error) {
	var start string
	if err := conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&start); err != nil {
		return 0, 0, err
	}
	began := time.Now()
	if err := fn(); err != nil {
		return 0, 0, err
	}
	took := time.Since(began)
	var wal int64
	err := conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint", start).Scan(&wal)
	return took, wal, err
}

// pruneSize returns the size of the event log's tables, their indexes and
// TOAST, partitions included, and of event_keys when it is a table.
func pruneSize(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var n int64
	err := conn.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
FROM unnest(ARRAY['events', 'deliveries', 'attempts', 'event_keys']) AS x(name)
JOIN pg_class c ON c.oid = to_regclass(current_schema() || '.' || x.name)
	OR c.oid IN (SELECT relid FROM pg_partition_tree(to_regclass(current_schema() || '.' || x.name)))
WHERE c.relkind = 'r'`).Scan(&n)
	return n, err
}

// printPrune prints the rows as a table.
func printPrune(w io.Writer, rows []pruneRow, body int) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "deliveries\tevents\tseed\tmethod\twall\tlocked\tWAL\tsize before\tsize after\tvacuum\tvacuum WAL\tsize vacuumed\t\n")
	for _, r := range rows {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Deliveries, r.Deleted, r.Seed.Round(time.Second), r.Method,
			r.Wall.Round(time.Millisecond), r.Locked.Round(time.Millisecond), mib(r.WAL), mib(r.SizeBefore), mib(r.SizeAfter),
			r.Vacuum.Round(time.Millisecond), mib(r.VacuumWAL), mib(r.SizeVacuumed))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "one day of done deliveries (bodies of %d bytes, a failed attempt row for 1 delivery in 20), 40 days old, "+
		"retired by one retention pass; yesterday's tenth as many kept; sizes of events, deliveries, attempts and event_keys "+
		"with indexes and TOAST, every partition\n", body)
}
