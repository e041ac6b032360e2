package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store/storecopy"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

func runCopyStore(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "copy-store")
	from := fs.String("from", "", "the database to copy from, as in the config's database: (sqlite:PATH or postgres://…)")
	to := fs.String("to", "", "the database to copy into: migrated with `hookrelay migrate` and empty")
	batch := fs.Int("batch", storecopy.DefaultBatch, "rows per batch, 1 to 10000: what the copy holds in memory at once")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay copy-store --from DATABASE --to DATABASE [--batch N]\n\n"+
			"Copies everything a relay keeps from one database to another, ids unchanged: events with\n"+
			"their bytes as stored (sealed payloads stay sealed), deliveries in every state with their\n"+
			"attempts, tombstones, the audit log, rejections, paused destinations, signature digests,\n"+
			"secret-slot counts and the audit key. A delivery that was processing is delivered again\n"+
			"by the new relay, as after a crash. Stop the relay first. The target must be migrated\n"+
			"(`hookrelay migrate` with a config that names it) and empty. It ends by checking that every\n"+
			"table holds as many rows on both sides. A PostgreSQL password may be left out of the URL\n"+
			"and given in PGPASSWORD.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *from == "" || *to == "":
		return fmt.Errorf("%w: want both --from and --to", errUsage)
	case *from == *to:
		return fmt.Errorf("%w: --from and --to name the same database", errUsage)
	case *batch < 1 || *batch > 10000:
		return fmt.Errorf("%w: --batch %d: want 1 to 10000 rows", errUsage, *batch)
	}
	if path, ok := strings.CutPrefix(*from, "sqlite:"); ok {
		// Opening a path that holds nothing would create an empty
		// database there, and the copy would then speak of migrations.
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no database at %s (%w): --from names the relay's database as its config's database: does", path, err)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := newLogger(env.Stderr, "warn", "text")
	src, err := storeopen.Open(ctx, *from, logger)
	if err != nil {
		return fmt.Errorf("open the source: %w", err)
	}
	defer src.Close()
	dst, err := storeopen.Open(ctx, *to, logger)
	if err != nil {
		return fmt.Errorf("open the target: %w", err)
	}
	defer dst.Close()

	fmt.Fprintf(env.Stdout, "copying %s to %s in batches of %d rows\n", config.MaskDatabase(*from), config.MaskDatabase(*to), *batch)
	start := time.Now()
	c := storecopy.Copier{Batch: *batch, Logger: logger}
	counts, err := c.Copy(ctx, src, dst)
	if err != nil {
		return explainCopy(err, *from, *to)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "table\tsource\tcopied\ttarget\t")
	var total int64
	for _, tc := range counts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", tc.Table, tc.Source, tc.Copied, tc.Target)
		total += tc.Copied
	}
	tw.Flush()
	elapsed := time.Since(start)
	fmt.Fprintf(env.Stdout, "done: %d rows in %d tables copied in %s (%.0f rows/s); every table holds as many rows on both sides\n",
		total, len(counts), elapsed.Round(time.Millisecond), float64(total)/max(elapsed.Seconds(), 1e-3))
	fmt.Fprintln(env.Stdout, "next: set database: in the relay's config to the --to URL (keep its encryption keys) and start the relay")
	return nil
}

// explainCopy says what to do about a copy that was refused or failed.
func explainCopy(err error, from, to string) error {
	var pending *storecopy.PendingError
	switch {
	case errors.As(err, &pending):
		db := from
		if pending.Side == "target" {
			db = to
		}
		return fmt.Errorf("%w: run `hookrelay migrate --config FILE` with a config whose database: is %s, then copy again", err, config.MaskDatabase(db))
	case errors.Is(err, storecopy.ErrTargetNotEmpty):
		return fmt.Errorf("the target %s is not empty (%w); copy into a new database, or drop this one, create it again, run `hookrelay migrate` on it and copy again",
			config.MaskDatabase(to), err)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("stopped before the copy ended: the target holds part of it; drop it, create it again, run `hookrelay migrate` on it and copy again")
	case errors.Is(err, storecopy.ErrCountMismatch):
		return fmt.Errorf("%w: was a relay running on either database? Stop it, start over on a new target and copy again", err)
	}
	return fmt.Errorf("%w; the target may hold part of the copy: drop it, create it again, run `hookrelay migrate` on it and copy again", err)
}
