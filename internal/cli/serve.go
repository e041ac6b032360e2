package cli

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/relay"
)

func runServe(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "serve")
	path := addConfigFlag(fs)
	roleName := fs.String("role", string(relay.RoleAll), "what this process runs: all, receiver or worker")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	role, err := relay.ParseRole(*roleName)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	cfg, err := loadConfig(env, *path)
	if err != nil {
		return err
	}
	logs := newBufferedLog(env.Stderr)
	defer logs.Close()
	logger := newLogger(logs, cfg.Log.Level, cfg.Log.Format)
	for _, w := range cfg.Warnings {
		logger.Warn("config: " + w)
	}

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	r, err := relay.New(ctx, cfg, role, logger)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	r.SetConfigLoader(func() (*config.Config, error) { return loadConfig(env, *path) })
	reloadOnHangup(ctx, r)
	return r.Run(ctx)
}
