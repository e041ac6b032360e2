package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os/signal"
	"syscall"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/gcfloor"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/tracing/otlpexport"
)

func runServe(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "serve")
	path := addConfigFlag(fs)
	roleName := fs.String("role", string(relay.RoleAll), "what this process runs: all (every part), receiver (public listener: ingest), worker (delivery and retention); each also serves the admin listener")
	listen := fs.String("listen", "", "public listener address, instead of the config's listen")
	adminListen := fs.String("admin-listen", "", "admin listener address, instead of the config's admin_listen")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	role, err := relay.ParseRole(*roleName)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if err := checkListenFlags(*listen, *adminListen); err != nil {
		return err
	}
	cfg, err := loadConfig(env, *path)
	if err != nil {
		return err
	}
	overrideListeners(cfg, *listen, *adminListen)
	logs := newBufferedLog(env.Stderr)
	defer logs.Close()
	logger := newLogger(logs, cfg.Log.Level, cfg.Log.Format)
	for _, w := range cfg.Warnings {
		logger.Warn("config: " + w)
	}
	// A GOGC in the environment is the operator's choice; without one, the
	// collector waits for the heap floor (see package gcfloor).
	if env.Getenv("GOGC") == "" {
		defer gcfloor.Start(gcfloor.DefaultFloor, logger).Stop()
	}
	local := addLocalToken(cfg, logger)
	stopTraces, err := otlpexport.Setup(ctx, env.Getenv, Version, logger)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer flushTraces(stopTraces, logger)

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	r, err := relay.New(ctx, cfg, role, logger)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	// A reload reads the file again with what this run added to it: the
	// listener flags and the one-run admin token.
	r.SetConfigLoader(func() (*config.Config, error) {
		next, err := loadConfig(env, *path)
		if err != nil {
			return nil, explainUnsetOnReload(err)
		}
		overrideListeners(next, *listen, *adminListen)
		local.addTo(next)
		return next, nil
	})
	r.SetLogFlush(logs.flush)
	reloadOnHangup(ctx, r)
	return r.Run(ctx)
}

// flushTraces sends the spans still buffered, within a few seconds, and
// stops the exporter.
func flushTraces(stop func(context.Context) error, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := stop(ctx); err != nil {
		logger.Warn("traces not all sent at exit", "error", err)
	}
}
