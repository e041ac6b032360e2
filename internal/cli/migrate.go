package cli

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/relay"
)

func runMigrate(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "migrate")
	path := addConfigFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := loadConfig(env, *path)
	if err != nil {
		return err
	}
	logger := newLogger(env.Stderr, cfg.Log.Level, cfg.Log.Format)
	st, err := relay.OpenStore(ctx, cfg.Database, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	fmt.Fprintln(env.Stdout, "migrations applied")
	return nil
}
