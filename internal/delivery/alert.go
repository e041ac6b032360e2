package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/console/link"
	"github.com/hookrelay/hookrelay/internal/signature"
)

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
	url        string
	format     string                    // config.AlertFormatJSON or config.AlertFormatSlack
	signer     *signature.StandardSigner // nil: alerts go unsigned
	consoleURL string                    // "": alerts carry no link
	client     *http.Client
	delays     []time.Duration
	queue      chan queuedAlert
	logger     *slog.Logger
	metrics    *metrics // nil when only an Alerter posts
	done       chan struct{}
}

// queuedAlert is one alert waiting to be posted: what it is (for the log),
// its webhook-id (the same for every try), its body, where its outcome is
// counted, and the log attributes that name it.
type queuedAlert struct {
	what    string
	id      string
	body    AlertBody
	counted func(outcome string)
	attrs   []any
}

// newAlerter returns an alerter that posts as t says: to t.URL, in
// t.Format (JSON when empty), signed with t.Secret when set, linking to the
// console at t.ConsoleURL when set. Its errors never carry the secret.
func newAlerter(t config.Alerts, logger *slog.Logger, m *metrics) (*alerter, error) {
	if !absoluteHTTP(t.URL) {
		return nil, errors.New("alerts.url is not an absolute http(s) URL")
	}
	a := &alerter{
		url:        t.URL,
		format:     t.Format,
		consoleURL: t.ConsoleURL,
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
	switch t.Format {
	case "":
		a.format = config.AlertFormatJSON
	case config.AlertFormatJSON, config.AlertFormatSlack:
	default:
		return nil, fmt.Errorf("alerts.format %q is neither %s", t.Format, strings.Join(config.AlertFormats, " nor "))
	}
	if t.Secret != "" {
		signer, err := signature.NewStandardSigner(t.Secret)
		if err != nil {
			return nil, fmt.Errorf("alerts.secret: %w", err)
		}
		a.signer = signer
	}
	return a, nil
}

// enqueue queues one dead-letter alert without blocking, with its kind,
// summary and console link; when the queue is full the alert is dropped
// and counted (the dead letter itself is already logged).
func (a *alerter) enqueue(al Alert) {
	al.Kind = AlertKindDeadLetter
	al.Summary = al.summary()
	al.URL = link.Event(a.consoleURL, al.EventID, al.Destination)
	a.push(queuedAlert{
		what:    "dead-letter alert",
		body:    al,
		counted: func(outcome string) { a.metrics.alerts.WithLabelValues(outcome).Inc() },
		attrs:   []any{keyDeliveryID, al.DeliveryID, keyDestination, al.Destination},
	})
}

// push queues q without blocking, or drops and counts it when the queue is
// full. It gives q its webhook-id.
func (a *alerter) push(q queuedAlert) {
	q.id = newAlertID()
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
		if err := a.send(ctx, q); err != nil {
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
func (a *alerter) send(ctx context.Context, q queuedAlert) error {
	body, err := a.encode(q.body)
	if err != nil {
		return fmt.Errorf("encode alert: %w", err)
	}
	for i := 0; ; i++ {
		err = a.post(ctx, q.id, body)
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

// post makes one try of the alert id whose encoded body is body, signed
// at the time of the try when the alerter has a secret, as a push delivery
// is signed.
func (a *alerter) post(ctx context.Context, id string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build alert request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hookrelay")
	if a.signer != nil {
		now := time.Now()
		sig, err := a.signer.Sign(id, now, body)
		if err != nil {
			return fmt.Errorf("sign alert: %w", err)
		}
		req.Header.Set(HeaderWebhookID, id)
		req.Header.Set(HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
		req.Header.Set(HeaderWebhookSignature, sig)
	}
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
