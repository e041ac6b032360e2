package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/delivery"
)

// Timings of `hookrelay listen`.
const (
	// listenForwardTimeout bounds one POST to the local server, as a push
	// destination's default timeout does.
	listenForwardTimeout = 10 * time.Second
	// listenAckMargin is the time an ack needs after a forward: a delivery
	// whose lease has less than a forward and this left is handed back
	// rather than forwarded late.
	listenAckMargin = 5 * time.Second
	// listenCallSlack is added to a claim's wait to bound the whole call,
	// so that a connection that died while the machine slept is noticed.
	listenCallSlack = 15 * time.Second
	// listenBackoffMin and listenBackoffMax bound the wait between tries
	// when the relay cannot be reached.
	listenBackoffMin = 500 * time.Millisecond
	listenBackoffMax = 10 * time.Second
	// listenAnswerLimit bounds the bytes of one answer of the relay read.
	listenAnswerLimit = 64 << 20
)

// listenConfig is what the flags of `hookrelay listen` ask for.
type listenConfig struct {
	destination string
	forwardTo   string
	max         int
	wait        time.Duration
	lease       time.Duration
	// printJSON prints each event as a JSON line instead of forwarding it.
	printJSON bool
}

// runListen claims deliveries of a pull destination, forwards each to a
// local URL exactly as a push destination would receive it, and
// acknowledges it with the local outcome, until SIGINT or SIGTERM.
func runListen(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "listen")
	api := addAPIFlags(fs)
	var lc listenConfig
	fs.StringVar(&lc.destination, "destination", "", "the pull destination to claim from (required)")
	fs.StringVar(&lc.forwardTo, "forward-to", "", "the local URL each event is POSTed to (required), e.g. http://localhost:3000/webhooks")
	fs.IntVar(&lc.max, "max", 10, "deliveries claimed at once, 1 to 100")
	fs.DurationVar(&lc.wait, "wait", 30*time.Second, "how long one claim waits for an event, at most 60s")
	fs.DurationVar(&lc.lease, "lease", delivery.ClaimLease, "how long the relay holds a claimed event for this listener before handing it out again (20s to 10m)")
	fs.BoolVar(&lc.printJSON, "print-json", false, "print each event as one JSON line (headers and body) on standard output and acknowledge it, instead of forwarding it: fixtures with a consumer token")
	source := fs.String("source", "", "not supported: set sources: on the destination in the relay's config")
	typ := fs.String("type", "", "not supported: set types: on the destination in the relay's config")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay listen --destination NAME (--forward-to URL | --print-json) [--server URL] [--token T]\n\n"+
			"Claims the events of a pull destination from the relay, POSTs each to a\n"+
			"local URL with the headers a push destination gets (signed with the\n"+
			"destination's secret), and acknowledges the local answer: 2xx is done,\n"+
			"2xx with 'hookrelay-outcome: skipped' is skipped, anything else failed.\n"+
			"Ctrl-C finishes the event in hand and hands the rest back. With --print-json\n"+
			"each event is printed as a JSON line instead, and acknowledged done.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if lc.forwardTo != "" && !strings.Contains(lc.forwardTo, "://") {
		lc.forwardTo = "http://" + lc.forwardTo // localhost:3000/webhooks
	}
	if err := lc.check(*source, *typ); err != nil {
		return err
	}
	c, err := api.client(env, "consumer")
	if err != nil {
		return err
	}

	// The first signal stops claiming and lets the event in hand finish;
	// a second one abandons it too.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stop, stopNow := context.WithCancel(ctx)
	defer stopNow()
	abort, abortNow := context.WithCancel(ctx)
	defer abortNow()
	go func() {
		select {
		case <-sigs:
		case <-abort.Done():
			return
		}
		fmt.Fprintln(env.Stderr, "stopping: no more claims; an event in hand is finished first, the rest handed back (Ctrl-C again to abandon it)")
		stopNow()
		select {
		case <-sigs:
			abortNow()
		case <-abort.Done():
		}
	}()

	l := &listener{
		cfg:   lc,
		api:   c.WithAnswerLimit(listenAnswerLimit),
		out:   env.Stdout,
		lines: env.Stdout,
		log:   env.Stderr,
		local: &http.Client{Timeout: listenForwardTimeout, CheckRedirect: delivery.NoRedirects},
	}
	to := "forwarding to " + lc.forwardTo
	if lc.printJSON {
		l.lines, to = env.Stderr, "printing each event as JSON"
	}
	fmt.Fprintf(env.Stderr, "listening on %s at %s, %s (Ctrl-C to stop)\n", lc.destination, c.Base(), to)
	return l.run(stop, abort)
}

// check validates the flags.
func (lc listenConfig) check(source, typ string) error {
	if source != "" || typ != "" {
		return fmt.Errorf("%w: --source and --type are not supported: the relay's claim does not filter, and listen never acknowledges an event it did not forward; "+
			"narrow what %s receives with sources: and types: on the destination in the relay's config", errUsage, orName(lc.destination))
	}
	if lc.destination == "" {
		return fmt.Errorf("%w: --destination is required: the name of a pull destination (pull: true) in the relay's config", errUsage)
	}
	if lc.printJSON {
		if lc.forwardTo != "" {
			return fmt.Errorf("%w: --print-json and --forward-to: choose one (print each event, or forward it)", errUsage)
		}
	} else if u, err := url.Parse(lc.forwardTo); lc.forwardTo == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: --forward-to %q: want the http(s) URL of your local server, e.g. http://localhost:3000/webhooks", errUsage, lc.forwardTo)
	}
	if lc.max < 1 || lc.max > 100 {
		return fmt.Errorf("%w: --max %d: want 1 to 100", errUsage, lc.max)
	}
	if lc.wait <= 0 || lc.wait > time.Minute {
		return fmt.Errorf("%w: --wait %s: want more than 0 and at most 60s", errUsage, lc.wait)
	}
	if lc.lease < delivery.MinClaimLease || lc.lease > delivery.MaxClaimLease {
		return fmt.Errorf("%w: --lease %s: want %s to %s", errUsage, lc.lease, delivery.MinClaimLease, delivery.MaxClaimLease)
	}
	return nil
}

func orName(dest string) string {
	if dest == "" {
		return "the destination"
	}
	return dest
}

// listener runs one `hookrelay listen`.
type listener struct {
	cfg   listenConfig
	api   *adminclient.Client
	out   io.Writer // --print-json: one JSON line per event
	lines io.Writer // one line per event: what happened to it
	log   io.Writer // what the listener is doing
	local *http.Client
}

// run claims and handles batches until stop is done. It returns an error
// only for what retrying cannot mend: a refused token, an unknown or push
// destination.
func (l *listener) run(stop, abort context.Context) error {
	var backoff time.Duration
	for stop.Err() == nil {
		start := time.Now().Round(0) // wall clock: a lease runs on while the machine sleeps
		batch, err := l.claim(stop)
		if stop.Err() != nil {
			// A claim cut short may have leased deliveries this listener
			// never saw; they return to the queue when the lease runs out.
			l.release(batch.Deliveries)
			break
		}
		if err != nil {
			if !listenRetryable(err) {
				return l.explain(err)
			}
			backoff = listenBackoff(backoff)
			fmt.Fprintf(l.log, "relay unavailable (%v); trying again in %s\n", err, backoff)
			if !listenSleep(stop, backoff) {
				break
			}
			continue
		}
		if backoff > 0 {
			fmt.Fprintln(l.log, "connected to the relay again")
			backoff = 0
		}
		deadline := start.Add(time.Duration(batch.LeaseSeconds) * time.Second)
		l.handle(stop, abort, batch.Deliveries, deadline)
	}
	fmt.Fprintln(l.log, "stopped")
	return nil
}

// claim long-polls the destination once.
func (l *listener) claim(ctx context.Context) (adminwire.Claimed, error) {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.wait+listenCallSlack)
	defer cancel()
	out, err := l.api.Claim(ctx, l.cfg.destination, adminclient.ClaimRequest{Max: l.cfg.max, Wait: l.cfg.wait, Lease: l.cfg.lease})
	return out, l.notRelay(err)
}

// handle forwards a batch in order and acknowledges each delivery. What it
// does not forward, because the listener stops or the lease is too short
// for another forward, it hands back to the relay.
func (l *listener) handle(stop, abort context.Context, batch []adminwire.ClaimedDelivery, deadline time.Time) {
	for i, d := range batch {
		if stop.Err() != nil || time.Now().Round(0).Add(listenForwardTimeout+listenAckMargin).After(deadline) {
			l.release(batch[i:])
			return
		}
		f := l.forward(abort, d)
		if abort.Err() != nil {
			l.release(batch[i:])
			return
		}
		res, err := l.ack(abort, d, f, deadline)
		fmt.Fprintln(l.lines, listenLine(time.Now(), d, f, res, err))
	}
}

// forwarded is the local server's answer to one delivery.
type forwarded struct {
	status   int // 0 when there was no answer
	outcome  string
	err      string
	duration time.Duration
	snippet  string // the start of the local answer's body
}

// forward POSTs the delivery's raw body with its headers to the local URL.
func (l *listener) forward(ctx context.Context, d adminwire.ClaimedDelivery) forwarded {
	body, err := base64.StdEncoding.DecodeString(d.BodyBase64)
	if err != nil {
		return forwarded{outcome: adminwire.OutcomeFailed, err: "the relay sent a body that is not base64"}
	}
	if l.cfg.printJSON {
		return l.print(d, body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.cfg.forwardTo, bytes.NewReader(body))
	if err != nil {
		return forwarded{outcome: adminwire.OutcomeFailed, err: fmt.Sprintf("build request: %v", err)}
	}
	listenHeaders(req.Header, d.Headers)
	start := time.Now()
	resp, err := l.local.Do(req)
	if err != nil {
		return forwarded{outcome: adminwire.OutcomeFailed, err: listenTransportError(err), duration: time.Since(start)}
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	f := forwarded{status: resp.StatusCode, duration: time.Since(start), snippet: string(snippet)}
	// The relay's retry policy ignores a consumer's Retry-After.
	v := delivery.ReadAnswer(resp.StatusCode, resp.Header, time.Now())
	f.outcome, f.err = string(v.Outcome), v.Reason
	return f
}

// listenHeaders sets the delivered headers on h, leaving out those that
// describe a connection rather than the event: net/http sets them itself.
func listenHeaders(h http.Header, delivered map[string]string) {
	for k, v := range delivered {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade":
			continue
		}
		h.Set(k, v)
	}
}

// listenTransportError says why the local server gave no answer, without
// the URL.
func listenTransportError(err error) string {
	var ne interface{ Timeout() bool }
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer within %s", listenForwardTimeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// ack records the local outcome, trying again while the relay cannot be
// reached and the lease lasts.
func (l *listener) ack(ctx context.Context, d adminwire.ClaimedDelivery, f forwarded, deadline time.Time) (adminwire.AckResult, error) {
	req := adminwire.AckRequest{Outcome: f.outcome, Error: f.err, LeaseToken: d.LeaseToken, StatusCode: f.status, ResponseSnippet: f.snippet}
	var backoff time.Duration
	for {
		callCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
		res, err := l.api.Ack(callCtx, d.ID, req)
		err = l.notRelay(err)
		cancel()
		if err == nil || !listenRetryable(err) {
			return res, err
		}
		backoff = listenBackoff(backoff)
		if time.Now().Round(0).Add(backoff).After(deadline) || !listenSleep(ctx, backoff) {
			return res, err
		}
	}
}

// release hands deliveries back to the relay unattempted. One that cannot
// be handed back returns to the queue when its lease runs out.
func (l *listener) release(ds []adminwire.ClaimedDelivery) {
	if len(ds) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	failed := 0
	for _, d := range ds {
		req := adminwire.AckRequest{Outcome: adminwire.OutcomeReleased, LeaseToken: d.LeaseToken}
		if _, err := l.api.Ack(ctx, d.ID, req); err != nil {
			failed++
		}
	}
	if failed > 0 {
		fmt.Fprintf(l.log, "%d of %d held events could not be handed back; the relay hands them out again when their lease runs out\n", failed, len(ds))
	}
}

// notRelay makes an error answer that did not come from the admin API,
// other than a 404 or a 5xx (a proxy's), adminclient.ErrNotRelay: trying
// again will not mend it.
func (l *listener) notRelay(err error) error {
	var se *adminclient.StatusError
	if errors.As(err, &se) && !se.FromAPI && se.Status != http.StatusNotFound && se.Status < 500 {
		return adminclient.NotRelay(l.api.Base(), se.Header, se.Body)
	}
	return err
}

// listenRetryable reports whether an API call is worth trying again: the
// relay was not reached, answered 5xx, or asked to slow down.
func listenRetryable(err error) bool {
	var se *adminclient.StatusError
	if errors.Is(err, adminclient.ErrNotRelay) {
		return false
	}
	if !errors.As(err, &se) {
		return true
	}
	return se.Status >= 500 || se.Status == http.StatusTooManyRequests
}

// explain turns a claim the relay refused into what to do about it.
func (l *listener) explain(err error) error {
	var se *adminclient.StatusError
	if !errors.As(err, &se) {
		return err
	}
	dest := l.cfg.destination
	switch se.Status {
	case http.StatusUnauthorized:
		if !l.api.HasToken() {
			return fmt.Errorf("no token given: set --token or $%s to the consumer token for %s", tokenEnv, dest)
		}
		return fmt.Errorf("the relay refused the token (401): set --token or $%s to the consumer token for %s from the relay's tokens list", tokenEnv, dest)
	case http.StatusForbidden:
		return fmt.Errorf("this token may not claim from %s (403): use the consumer token whose destinations include %s, or an admin token", dest, dest)
	case http.StatusNotFound:
		if se.Message == "" || strings.HasPrefix(se.Message, "404 page not found") {
			return fmt.Errorf("%s answered 404: is it the relay's admin listener (admin_listen), not the public one?", l.api.Base())
		}
		return fmt.Errorf("the relay cannot hand out %s: %s (add it to the relay's config with pull: true)", dest, se.Message)
	}
	return fmt.Errorf("the relay refused the claim from %s: %w", dest, se)
}

// listenBackoff returns the wait after one that was prev: doubling from
// listenBackoffMin, at most listenBackoffMax.
func listenBackoff(prev time.Duration) time.Duration {
	if prev <= 0 {
		return listenBackoffMin
	}
	return min(2*prev, listenBackoffMax)
}

// listenSleep waits d, and reports false if ctx ended first.
func listenSleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// listenLine is the line printed for one forwarded event: time, source,
// type, provider event id, local status, duration, and what the relay
// recorded.
func listenLine(at time.Time, d adminwire.ClaimedDelivery, f forwarded, res adminwire.AckResult, ackErr error) string {
	status := "---"
	if f.status != 0 {
		status = fmt.Sprint(f.status)
	}
	providerID := d.Headers["Hookrelay-Event-Id"]
	if providerID == "" {
		providerID = d.ProviderEventID
	}
	line := fmt.Sprintf("%s  %s  %s  %s  %s  %s", at.Format("15:04:05"), dash(d.Source), dash(d.Type), dash(providerID), status, listenDuration(f.duration))
	if ackErr != nil {
		why := fmt.Sprintf("%v; the relay hands it out again when its lease runs out", ackErr)
		var se *adminclient.StatusError
		if errors.As(ackErr, &se) && se.Status == http.StatusConflict {
			why = "the lease ran out; the relay hands it out again"
		}
		return fmt.Sprintf("%s  %s here, not recorded: %s", line, f.outcome, why)
	}
	recorded := res.Status
	if recorded == "" {
		recorded = f.outcome
	}
	if f.err != "" {
		recorded += ": " + f.err
	}
	if res.Status == adminwire.OutcomeFailed && res.NextAttemptAt != nil {
		recorded += "; next try at " + res.NextAttemptAt.In(at.Location()).Format("15:04:05")
	}
	return line + "  " + recorded
}

// listenDuration rounds d for display: milliseconds below ten seconds.
func listenDuration(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}
