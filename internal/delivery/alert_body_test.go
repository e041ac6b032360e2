package delivery

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/signature"
)

func TestDeadLetterSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a    Alert
		want string
	}{
		{"push", Alert{DeliveryID: 42, EventID: "01HX", ProviderEventID: "evt_1", Source: "stripe", Type: "invoice.paid",
			Destination: "billing", Attempts: 8, LastError: "status 500", LastStatusCode: 500},
			"billing: delivery 42 of stripe event evt_1 (invoice.paid) is dead after 8 attempts: status 500"},
		{"one attempt, no answer", Alert{DeliveryID: 3, EventID: "01HX", ProviderEventID: "evt_2", Source: "github", Type: "push",
			Destination: "ci", Attempts: 1, LastError: "timeout after 10s"},
			"ci: delivery 3 of github event evt_2 (push) is dead after 1 attempt: timeout after 10s"},
		{"a code without an error", Alert{DeliveryID: 5, EventID: "01HX", ProviderEventID: "evt_3", Source: "stripe",
			Destination: "dev", Attempts: 2, LastStatusCode: 502},
			"dev: delivery 5 of stripe event evt_3 is dead after 2 attempts: status 502"},
		{"event not read", Alert{DeliveryID: 9, EventID: "01HX", Destination: "dev", Attempts: 2, LastError: "local server down"},
			"dev: delivery 9 of event 01HX is dead after 2 attempts: local server down"},
	}
	for _, tt := range tests {
		if got := tt.a.summary(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// alertSecret signs the alerts of the tests.
const alertSecret = "whsec_YWxlcnQtc2lnbmluZy1rZXk="

// postedAlert is one request an alert endpoint received.
type postedAlert struct {
	header http.Header
	body   []byte
}

// rawAlertSink records every request, and fails the first failures.
type rawAlertSink struct {
	mu       sync.Mutex
	posts    []postedAlert
	failures int
}

func newRawAlertSink(t *testing.T, failures int) (*rawAlertSink, *httptest.Server) {
	t.Helper()
	s := &rawAlertSink{failures: failures}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.posts = append(s.posts, postedAlert{header: r.Header.Clone(), body: b})
		if len(s.posts) <= s.failures {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *rawAlertSink) received() []postedAlert {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]postedAlert(nil), s.posts...)
}

// verifyAlert checks an alert's signature with the signature package's
// Standard Webhooks verifier, as a receiver of alerts would.
func verifyAlert(t *testing.T, p postedAlert) {
	t.Helper()
	sch, err := signature.New(signature.Options{Scheme: "standard", Secrets: []string{alertSecret}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sch.Verify(signature.Request{Header: p.header, Body: p.body}); err != nil {
		t.Errorf("alert does not verify: %v\n%s %s", err, p.header, p.body)
	}
}

// postDeadLetter posts one dead-letter alert as t says and returns what
// the endpoint received.
func postDeadLetter(t *testing.T, target config.Alerts, failures int, alerts ...Alert) []postedAlert {
	t.Helper()
	sink, srv := newRawAlertSink(t, failures)
	target.URL = srv.URL
	m, err := newMetrics(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newAlerter(target, slog.New(slog.DiscardHandler), m)
	if err != nil {
		t.Fatal(err)
	}
	a.delays = []time.Duration{time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.run(ctx)
	for _, al := range alerts {
		a.enqueue(al)
	}
	a.stop(cancel)
	return sink.received()
}

var deadBilling = Alert{DeliveryID: 42, EventID: "01HXEVENT", ProviderEventID: "evt_1", Source: "stripe", Type: "invoice.paid",
	Destination: "billing", Attempts: 8, LastError: "status 500", LastStatusCode: 500}

const deadBillingSummary = "billing: delivery 42 of stripe event evt_1 (invoice.paid) is dead after 8 attempts: status 500"

func TestAlertFormats(t *testing.T) {
	t.Parallel()
	const console = "https://relay.example.com:8081"
	const eventPage = console + "/events/01HXEVENT#delivery-billing"
	tests := []struct {
		name     string
		target   config.Alerts
		alert    Alert
		wantBody string
	}{
		{"json", config.Alerts{}, deadBilling,
			`{"kind":"dead_letter","summary":"` + deadBillingSummary + `","delivery_id":42,"event_id":"01HXEVENT","provider_event_id":"evt_1",` +
				`"source":"stripe","type":"invoice.paid","destination":"billing","attempts":8,"last_error":"status 500","last_status_code":500}`},
		{"json with a link", config.Alerts{Format: "json", ConsoleURL: console}, deadBilling,
			`{"kind":"dead_letter","summary":"` + deadBillingSummary + `","url":"` + eventPage + `","delivery_id":42,"event_id":"01HXEVENT",` +
				`"provider_event_id":"evt_1","source":"stripe","type":"invoice.paid","destination":"billing","attempts":8,` +
				`"last_error":"status 500","last_status_code":500}`},
		{"slack", config.Alerts{Format: "slack"}, deadBilling, `{"text":"` + deadBillingSummary + `"}`},
		{"slack with a link", config.Alerts{Format: "slack", ConsoleURL: console}, deadBilling,
			`{"text":"` + deadBillingSummary + ` <` + eventPage + `|Open in the console>"}`},
		{"slack escapes markup", config.Alerts{Format: "slack"},
			Alert{DeliveryID: 1, EventID: "01HX", Destination: "dev", Attempts: 1, LastError: "<html> & more"},
			`{"text":"dev: delivery 1 of event 01HX is dead after 1 attempt: &lt;html&gt; &amp; more"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, signed := range []bool{false, true} {
				target := tt.target
				if signed {
					target.Secret = alertSecret
				}
				posts := postDeadLetter(t, target, 0, tt.alert)
				if len(posts) != 1 {
					t.Fatalf("signed %v: %d posts, want 1", signed, len(posts))
				}
				p := posts[0]
				if string(p.body) != tt.wantBody {
					t.Errorf("signed %v: body\n%s\nwant\n%s", signed, p.body, tt.wantBody)
				}
				if !json.Valid(p.body) || p.header.Get("Content-Type") != "application/json" {
					t.Errorf("signed %v: not a JSON post: %q %s", signed, p.header.Get("Content-Type"), p.body)
				}
				if !signed {
					if h := p.header.Get("Webhook-Signature") + p.header.Get("Webhook-Id"); h != "" {
						t.Errorf("an unsigned alert carries %q", h)
					}
					continue
				}
				verifyAlert(t, p)
			}
		})
	}
}

// TestAlertWebhookID checks that an alert keeps its webhook-id across its
// tries, each signed anew, and that two alerts never share one.
func TestAlertWebhookID(t *testing.T) {
	t.Parallel()
	other := deadBilling
	other.DeliveryID = 43
	posts := postDeadLetter(t, config.Alerts{Secret: alertSecret}, 1, deadBilling, other)
	if len(posts) != 3 {
		t.Fatalf("%d posts, want 3 (a failed try, its retry, the second alert)", len(posts))
	}
	ids := make([]string, len(posts))
	for i, p := range posts {
		verifyAlert(t, p)
		ids[i] = p.header.Get("Webhook-Id")
	}
	if ids[0] == "" || ids[0] != ids[1] {
		t.Errorf("a retried alert's webhook-ids %q, %q: want the same", ids[0], ids[1])
	}
	if ids[2] == "" || ids[2] == ids[0] {
		t.Errorf("two alerts' webhook-ids %q, %q: want them distinct", ids[0], ids[2])
	}
}

// sigAlert stands in for an alert the receiver raises.
type sigAlert struct {
	Kind    string `json:"kind"`
	Summary string `json:"summary"`
	URL     string `json:"url,omitempty"`
}

func (a sigAlert) AlertSummary() string { return a.Summary }
func (a sigAlert) AlertLink() string    { return a.URL }

// TestAlerterPostsAnyBody checks that an Alerter posts what it is given in
// the configured format, signed.
func TestAlerterPostsAnyBody(t *testing.T) {
	t.Parallel()
	sink, srv := newRawAlertSink(t, 0)
	x, err := StartAlerter(context.Background(), config.Alerts{URL: srv.URL, Format: "slack", Secret: alertSecret}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var outcome string
	x.Post("test alert", sigAlert{Kind: "signature_failures", Summary: "stripe: 4 requests rejected", URL: "https://r/rejections?source=stripe"},
		func(o string) { outcome = o })
	x.Stop()
	posts := sink.received()
	if len(posts) != 1 || outcome != AlertSent {
		t.Fatalf("%d posts, outcome %q; want 1, sent", len(posts), outcome)
	}
	if want := `{"text":"stripe: 4 requests rejected <https://r/rejections?source=stripe|Open in the console>"}`; string(posts[0].body) != want {
		t.Errorf("body %s, want %s", posts[0].body, want)
	}
	verifyAlert(t, posts[0])
}

func TestNewAlerterRefuses(t *testing.T) {
	t.Parallel()
	for _, target := range []config.Alerts{
		{URL: "mailto:ops@example.com"},
		{URL: "https://h/", Format: "teams"},
		{URL: "https://h/", Secret: "whsec_!!not-base64"},
	} {
		_, err := StartAlerter(context.Background(), target, slog.New(slog.DiscardHandler))
		if err == nil {
			t.Errorf("StartAlerter(%+v) succeeded", target)
			continue
		}
		if target.Secret != "" && strings.Contains(err.Error(), target.Secret) {
			t.Errorf("the error carries the secret: %v", err)
		}
	}
}
