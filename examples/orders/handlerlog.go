package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay"
)

// logged wraps a handler with a log line as it starts and one as it
// returns, each with the provider's event id and the attempt. Both are
// written while the handler's transaction is open, which hookrelay
// commits after the second: a process that dies between the two dies
// with the transaction open, and the event is handled again, once, at the
// next start. The crash test (e2e/reliability, TestLibraryCrash) finds
// such kills in these lines.
func logged(logger *slog.Logger, h hookrelay.HandlerFunc) hookrelay.HandlerFunc {
	return func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
		logger.Info("handler started", "event_id", ev.ProviderEventID, "attempt", ev.Attempt)
		err := h(ctx, tx, ev)
		logger.Info("handler returned", "event_id", ev.ProviderEventID, "attempt", ev.Attempt, "ok", err == nil)
		return err
	}
}

// slowed wraps a handler so that each call first waits delay, inside its
// transaction, as a handler that calls a slow query would; a delay of
// zero or less returns h itself. The crash test slows the handler so that
// its kills find transactions open.
func slowed(delay time.Duration, h hookrelay.HandlerFunc) hookrelay.HandlerFunc {
	if delay <= 0 {
		return h
	}
	return func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		return h(ctx, tx, ev)
	}
}
