package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Alert is the JSON body posted to alerts.url when a delivery goes dead. It
// identifies the delivery and why it failed; it never carries the payload.
type Alert struct {
	DeliveryID      int64  `json:"delivery_id"`
	EventID         string `json:"event_id"`
	ProviderEventID string `json:"provider_event_id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Destination     string `json:"destination"`
	Attempts        int    `json:"attempts"`
	LastError       string `json:"last_error"`
	LastStatusCode  int    `json:"last_status_code"`
}

// Alerting limits. Alerts go out from their own goroutine, one at a time, so
// a slow alert endpoint never holds a delivery worker.
const (
	alertQueueSize = 1024
	alertTimeout   = 5 * time.Second
	// alertDrainTimeout bounds how long a stopping engine keeps posting the
	// alerts still queued.
	alertDrainTimeout = 10 * time.Second
)

// alertRetryDelays are the waits between the tries of one alert.
var alertRetryDelays = []time.Duration{time.Second, 5 * time.Second}

// alerter posts alerts in the background: dead letters, and whatever an
// Alerter is given.
type alerter struct {
	url     string
	client  *http.Client
	delays  []time.Duration
	queue   chan queuedAlert
	logger  *slog.Logger
	metrics *metrics // nil when only an Alerter posts
	done    chan struct{}
}

// queuedAlert is one alert waiting to be posted: what it is (for the log),
// its JSON body, where its outcome is counted, and the log attributes that
// name it.
type queuedAlert struct {
	what    string
	body    any
	counted func(outcome string)
	attrs   []any
}

func newAlerter(url string, logger *slog.Logger, m *metrics) *alerter {
	return &alerter{
		url: url,
		client: &http.Client{
			Timeout:       alertTimeout,
			CheckRedirect: NoRedirects,
		},
		delays:  alertRetryDelays,
		queue:   make(chan queuedAlert, alertQueueSize),
		logger:  logger,
		metrics: m,
		done:    make(chan struct{}),
	}
}

// enqueue queues one dead-letter alert without blocking; when the queue is
// full the alert is dropped and counted (the dead letter itself is already
// logged).
func (a *alerter) enqueue(al Alert) {
	a.push(queuedAlert{
		what:    "dead-letter alert",
		body:    al,
		counted: func(outcome string) { a.metrics.alerts.WithLabelValues(outcome).Inc() },
		attrs:   []any{keyDeliveryID, al.DeliveryID, keyDestination, al.Destination},
	})
}

// push queues q without blocking, or drops and counts it when the queue is
// full.
func (a *alerter) push(q queuedAlert) {
	select {
	case a.queue <- q:
	default:
		q.counted(alertDropped)
		a.logger.Error(q.what+" dropped: queue full", q.attrs...)
	}
}

// run posts queued alerts until stop is called and the queue is empty, or
// until ctx is done.
func (a *alerter) run(ctx context.Context) {
	defer close(a.done)
	for q := range a.queue {
		if ctx.Err() != nil {
			q.counted(alertFailed)
			continue
		}
		if err := a.send(ctx, q.body); err != nil {
			q.counted(alertFailed)
			a.logger.Error(q.what+" failed", append(q.attrs, keyError, err)...)
			continue
		}
		q.counted(alertSent)
	}
}

// stop closes the queue and waits for run to post what is left, for at most
// alertDrainTimeout; cancel ends run's context when that runs out.
func (a *alerter) stop(cancel context.CancelFunc) {
	close(a.queue)
	t := time.NewTimer(alertDrainTimeout)
	defer t.Stop()
	select {
	case <-a.done:
	case <-t.C:
		cancel()
		<-a.done
	}
}

// send posts one alert, trying again after each of a.delays.
func (a *alerter) send(ctx context.Context, al any) error {
	body, err := json.Marshal(al)
	if err != nil {
		return fmt.Errorf("encode alert: %w", err)
	}
	for i := 0; ; i++ {
		err = a.post(ctx, body)
		if err == nil || i >= len(a.delays) {
			return err
		}
		t := time.NewTimer(a.delays[i])
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

func (a *alerter) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build alert request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hookrelay")
	resp, err := a.client.Do(req)
	if err != nil {
		return errors.New("post alert: " + transportError(err, alertTimeout))
	}
	_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("post alert: status %d", resp.StatusCode)
	}
	return nil
}
