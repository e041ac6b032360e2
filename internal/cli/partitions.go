package cli

import (
	"context"
	"fmt"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

func runPartitions(ctx context.Context, env Env, args []string) error {
	return runVerb(ctx, env, "partitions", args, []verb{
		{"enable", runPartitionsEnable},
		{"list", runPartitionsList},
	})
}

// runPartitionsEnable converts the event log of the config's PostgreSQL
// database to partitions of the config's period (or --period's).
func runPartitionsEnable(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "partitions enable")
	path := addConfigFlag(fs)
	periodFlag := fs.String("period", "", "daily or hourly (default: the config's retention.partitions)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay partitions enable [--config FILE] [--period daily|hourly]\n\n"+
			"Partitions the event log of the config's PostgreSQL database by UTC day or hour: the rows stored\n"+
			"become one partition, dropped once the retention has passed the end of the current period, and\n"+
			"each period from then on gets partitions of its own. Migrates first. Stop the relays before, and\n"+
			"start them with retention.partitions set to the same period. It reads every table whole under\n"+
			"locks that let reads and writes go on, and locks them only for its last step.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(env, *path, "database", "retention")
	if err != nil {
		return err
	}
	period, err := partitionPeriod(cfg, *periodFlag)
	if err != nil {
		return err
	}
	st, err := storeopen.OpenWith(ctx, cfg.Database, storeopen.Options{Partitions: period},
		newLogger(env.Stderr, cfg.Log.Level, cfg.Log.Format))
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if partitioned, err := st.Partitioned(ctx); err != nil || partitioned {
		if err == nil {
			fmt.Fprintf(env.Stdout, "the event log is partitioned: set retention.partitions: %s in every relay's config\n", period)
		}
		return err
	}
	began := time.Now()
	err = st.EnablePartitions(ctx, period, time.Time{}, func(step string) {
		fmt.Fprintf(env.Stdout, "%s  %s\n", time.Since(began).Round(time.Millisecond), step)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "event log partitioned %s in %s: set retention.partitions: %s in every relay's config, then start them\n",
		period, time.Since(began).Round(time.Millisecond), period)
	return nil
}

// runPartitionsList prints the partitions of the event log.
func runPartitionsList(ctx context.Context, env Env, args []string) error {
	cfg, err := configOnly(env, "partitions list", args, "database")
	if err != nil {
		return err
	}
	if driver, _ := cfg.DatabaseDriver(); driver != "postgres" {
		return fmt.Errorf("%w: partitions are PostgreSQL's; this database is %s", errUsage, driver)
	}
	st, err := storeopen.Open(ctx, cfg.Database, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer st.Close()
	ps, err := st.ListPartitions(ctx)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		fmt.Fprintln(env.Stdout, "the event log is not partitioned (see hookrelay partitions enable)")
		return nil
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PARTITION\tFROM\tTO\tEVENTS (EST.)\tDELIVERIES (EST.)")
	for _, p := range ps {
		from, to := atMinute(p.From, "the start"), atMinute(p.To, "")
		if p.To.IsZero() {
			from, to = "any other time", "" // the DEFAULT partition
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\n", p.Name, from, to, p.Events, p.Deliveries)
	}
	return w.Flush()
}

// partitionPeriod returns the period flag names, or else the config's.
func partitionPeriod(cfg *config.Config, flag string) (store.PartitionPeriod, error) {
	if driver, _ := cfg.DatabaseDriver(); driver != "postgres" {
		return "", fmt.Errorf("%w: partitions are PostgreSQL's; this database is %s", errUsage, driver)
	}
	name := flag
	if name == "" {
		name = cfg.Retention.Partitions
	}
	period, err := store.ParsePartitionPeriod(name)
	if err != nil {
		return "", fmt.Errorf("%w: --period: %w", errUsage, err)
	}
	if period == store.PartitionsOff {
		return "", fmt.Errorf("%w: no period: set retention.partitions in the config, or give --period daily or hourly", errUsage)
	}
	if cfg.Retention.Partitions != "" && cfg.Retention.Partitions != name {
		return "", fmt.Errorf("%w: --period %s, but the config's retention.partitions is %s", errUsage, name, cfg.Retention.Partitions)
	}
	return period, nil
}

// atMinute writes t in UTC to the minute, or else as zero.
func atMinute(t time.Time, zero string) string {
	if t.IsZero() {
		return zero
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}
