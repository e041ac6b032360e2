package delivery

import (
	"context"
	"log/slog"
)

// Alert outcomes, as an Alerter reports them to a post's counter.
const (
	AlertSent    = alertSent
	AlertFailed  = alertFailed
	AlertDropped = alertDropped
)

// Alerter posts JSON alerts to alerts.url from a goroutine of its own, with
// the queue, timeout and retries of the dead-letter alerts, so that a slow
// alert endpoint never holds the caller.
type Alerter struct {
	a      *alerter
	cancel context.CancelFunc
}

// StartAlerter starts posting to url in the background; call Stop to post
// what is queued (for a few seconds at most) and stop.
func StartAlerter(ctx context.Context, url string, logger *slog.Logger) *Alerter {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	x := &Alerter{a: newAlerter(url, logger.With("component", "alerts"), nil), cancel: cancel}
	go x.a.run(ctx)
	return x
}

// Post queues body without blocking. counted is told the outcome once:
// AlertSent, AlertFailed (every try failed) or AlertDropped (the queue was
// full). what names the alert in the log, with attrs.
func (x *Alerter) Post(what string, body any, counted func(outcome string), attrs ...any) {
	x.a.push(queuedAlert{what: what, body: body, counted: counted, attrs: attrs})
}

// Stop posts the alerts still queued, for at most a few seconds, and stops.
// Post must not be called after Stop.
func (x *Alerter) Stop() { x.a.stop(x.cancel) }
