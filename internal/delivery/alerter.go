package delivery

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hookrelay/hookrelay/internal/config"
)

// Alert outcomes, as an Alerter reports them to a post's counter.
const (
	AlertSent    = alertSent
	AlertFailed  = alertFailed
	AlertDropped = alertDropped
)

// Alerter posts alerts to alerts.url from a goroutine of its own, with the
// format, signature, queue, timeout and retries of the dead-letter alerts,
// so that a slow alert endpoint never holds the caller.
type Alerter struct {
	a      *alerter
	cancel context.CancelFunc
}

// StartAlerter starts posting as t says (see Options.Alerts) in the
// background; call Stop to post what is queued (for a few seconds at most)
// and stop. It fails when t.URL is not an absolute http(s) URL, t.Format
// is not a format, or t.Secret does not decode.
func StartAlerter(ctx context.Context, t config.Alerts, logger *slog.Logger) (*Alerter, error) {
	a, err := newAlerter(t, logger.With("component", "alerts"), nil)
	if err != nil {
		return nil, fmt.Errorf("start alerter: %w", err)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	x := &Alerter{a: a, cancel: cancel}
	go x.a.run(ctx)
	return x, nil
}

// Post queues body without blocking. counted is told the outcome once:
// AlertSent, AlertFailed (every try failed) or AlertDropped (the queue was
// full). what names the alert in the log, with attrs.
func (x *Alerter) Post(what string, body AlertBody, counted func(outcome string), attrs ...any) {
	x.a.push(queuedAlert{what: what, body: body, counted: counted, attrs: attrs})
}

// Stop posts the alerts still queued, for at most a few seconds, and stops.
// Post must not be called after Stop.
func (x *Alerter) Stop() { x.a.stop(x.cancel) }
