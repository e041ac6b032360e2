package cli

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/relay"
)

func runMigrate(ctx context.Context, env Env, args []string) error {
	cfg, err := configOnly(env, "migrate", args)
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
