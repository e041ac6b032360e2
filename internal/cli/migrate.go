package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

func runMigrate(ctx context.Context, env Env, args []string) error {
	if len(args) > 0 && args[0] == "export" {
		return runMigrateExport(ctx, env, args[1:])
	}
	cfg, err := configOnly(env, "migrate", args, "database", "log")
	if err != nil {
		return err
	}
	logger := newLogger(env.Stderr, cfg.Log.Level, cfg.Log.Format)
	st, err := storeopen.OpenWith(ctx, cfg.Database, storeopen.Options{Partitions: store.PartitionPeriod(cfg.Retention.Partitions)}, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	pending, err := st.PendingMigrations(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if len(pending) == 0 {
		fmt.Fprintln(env.Stdout, "database up to date: nothing to apply")
		return nil
	}
	fmt.Fprintf(env.Stdout, "applied %d migrations: %s\n", len(pending), strings.Join(pending, ", "))
	return nil
}
