package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/hookrelay/hookrelay/internal/relayproc"
)

// Secrets of the soak's config, given to the relay through its environment.
const (
	stripeSecret = "whsec_c29hay1zdHJpcGUtc2VjcmV0"
	sinkSecret   = "whsec_c29hay1zaW5rLXNlY3JldA=="
)

var relayEnv = []string{"SOAK_STRIPE_SECRET=" + stripeSecret, "SOAK_SINK_SECRET=" + sinkSecret}

// writeConfig writes the soak's config: the stripe source and one push
// destination, "sink", at url, retried quickly and for as long as a soak
// can need.
func writeConfig(path, database, public, admin, url string) error {
	cfg := relayproc.SinkConfig{
		Database: database, Listen: public, AdminListen: admin,
		URL: url, Backoff: "[100ms, 500ms, 1s]", SecretPrefix: "SOAK",
	}.YAML()
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// startRelay starts binary on the config at cfgPath with its output
// appended to logPath, and waits until admin's /readyz answers 200.
func startRelay(ctx context.Context, binary, cfgPath, logPath, admin string) (*relayproc.Proc, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open relay log: %w", err)
	}
	p, err := relayproc.Start(relayproc.Options{
		Binary: binary, Args: []string{"serve", "--config", cfgPath},
		Env: relayEnv, Output: logFile, Admin: admin,
	})
	_ = logFile.Close() // the child holds its own descriptor
	if err != nil {
		return nil, err
	}
	if err := p.WaitReady(ctx, 60*time.Second); err != nil {
		p.Kill()
		return nil, err
	}
	return p, nil
}

// stopRelay sends SIGTERM and waits for the graceful shutdown.
func stopRelay(p *relayproc.Proc) error {
	_ = p.Signal(syscall.SIGTERM, 0)
	if err := p.Err(); err != nil {
		return fmt.Errorf("relay exit after SIGTERM: %w", err)
	}
	return nil
}
