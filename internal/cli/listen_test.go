package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/delivery"
)

func TestListenConfigCheck(t *testing.T) {
	t.Parallel()
	ok := listenConfig{destination: "dev-alice", forwardTo: "http://localhost:3000/webhooks", max: 10, wait: 30 * time.Second, lease: time.Minute}
	tests := []struct {
		name         string
		edit         func(*listenConfig)
		source, typ  string
		wantContains string
	}{
		{name: "valid", edit: func(*listenConfig) {}},
		{name: "source filter", edit: func(*listenConfig) {}, source: "stripe", wantContains: "sources: and types: on the destination"},
		{name: "type filter", edit: func(*listenConfig) {}, typ: "invoice.*", wantContains: "not supported"},
		{name: "no destination", edit: func(c *listenConfig) { c.destination = "" }, wantContains: "--destination is required"},
		{name: "no forward-to", edit: func(c *listenConfig) { c.forwardTo = "" }, wantContains: "--forward-to"},
		{name: "forward-to without scheme", edit: func(c *listenConfig) { c.forwardTo = "localhost:3000" }, wantContains: "--forward-to"},
		{name: "forward-to not http", edit: func(c *listenConfig) { c.forwardTo = "ftp://localhost/x" }, wantContains: "--forward-to"},
		{name: "max 0", edit: func(c *listenConfig) { c.max = 0 }, wantContains: "--max"},
		{name: "max 101", edit: func(c *listenConfig) { c.max = 101 }, wantContains: "--max"},
		{name: "wait 0", edit: func(c *listenConfig) { c.wait = 0 }, wantContains: "--wait"},
		{name: "wait 61s", edit: func(c *listenConfig) { c.wait = 61 * time.Second }, wantContains: "--wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := ok
			tt.edit(&c)
			err := c.check(tt.source, tt.typ)
			if tt.wantContains == "" {
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				return
			}
			if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tt.wantContains) {
				t.Fatalf("check = %v, want a usage error containing %q", err, tt.wantContains)
			}
		})
	}
}

func TestListenBackoff(t *testing.T) {
	t.Parallel()
	var got []time.Duration
	d := time.Duration(0)
	for range 8 {
		d = listenBackoff(d)
		got = append(got, d)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backoff steps %v, want %v", got, want)
		}
	}
}

func TestListenRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want bool
	}{
		{errors.New("reach http://127.0.0.1:8081: connection refused"), true},
		{&adminclient.StatusError{Status: 500}, true},
		{&adminclient.StatusError{Status: 503}, true},
		{&adminclient.StatusError{Status: 429}, true},
		{&adminclient.StatusError{Status: 401}, false},
		{&adminclient.StatusError{Status: 403}, false},
		{&adminclient.StatusError{Status: 404}, false},
		{&adminclient.StatusError{Status: 409}, false},
	}
	for _, tt := range tests {
		if got := listenRetryable(tt.err); got != tt.want {
			t.Errorf("listenRetryable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestListenExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		token string
		err   error
		want  string
	}{
		{"no token", "", &adminclient.StatusError{Status: 401, Message: "missing or unknown bearer token"}, "no token given"},
		{"wrong token", "t", &adminclient.StatusError{Status: 401, Message: "missing or unknown bearer token"}, "the relay refused the token (401)"},
		{"another's destination", "t", &adminclient.StatusError{Status: 403, Message: "the token's role does not allow this"}, "may not claim from dev-alice (403)"},
		{"unknown destination", "t", &adminclient.StatusError{Status: 404, Message: `no destination "dev-alice" in the config`}, "pull: true"},
		{"public listener", "t", &adminclient.StatusError{Status: 404, Message: "404 page not found"}, "admin listener"},
		{"push destination", "t", &adminclient.StatusError{Status: 400, Message: "only pull destinations are claimed"}, "only pull destinations are claimed"},
	}
	for _, tt := range tests {
		l := &listener{cfg: listenConfig{destination: "dev-alice"}, api: adminclient.New("http://relay:8081", tt.token)}
		if got := l.explain(tt.err).Error(); !strings.Contains(got, tt.want) {
			t.Errorf("%s: explain = %q, want it to contain %q", tt.name, got, tt.want)
		}
	}
}

func TestListenLine(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 3, 9, 15, 4, 0, time.UTC)
	next := at.Add(time.Minute)
	d := adminwire.ClaimedDelivery{Source: "stripe", Type: "invoice.paid", ProviderEventID: "evt_1",
		Headers: map[string]string{"Hookrelay-Event-Id": "evt_1"}}
	tests := []struct {
		name   string
		d      adminwire.ClaimedDelivery
		f      forwarded
		res    adminwire.AckResult
		ackErr error
		want   string
	}{
		{"done", d, forwarded{status: 200, outcome: "done", duration: 12345 * time.Microsecond},
			adminwire.AckResult{Status: "done"}, nil, "09:15:04  stripe  invoice.paid  evt_1  200  12ms  done"},
		{"skipped", d, forwarded{status: 202, outcome: "skipped", duration: 3 * time.Millisecond},
			adminwire.AckResult{Status: "skipped"}, nil, "09:15:04  stripe  invoice.paid  evt_1  202  3ms  skipped"},
		{"failed", d, forwarded{status: 500, outcome: "failed", err: "status 500", duration: time.Millisecond},
			adminwire.AckResult{Status: "failed", NextAttemptAt: &next}, nil, "09:15:04  stripe  invoice.paid  evt_1  500  1ms  failed: status 500; next try at 09:16:04"},
		{"no answer", d, forwarded{outcome: "failed", err: "connection refused"},
			adminwire.AckResult{Status: "dead"}, nil, "09:15:04  stripe  invoice.paid  evt_1  ---  0s  dead: connection refused"},
		{"lease lost", d, forwarded{status: 200, outcome: "done", duration: 12 * time.Second},
			adminwire.AckResult{}, &adminclient.StatusError{Status: 409}, "09:15:04  stripe  invoice.paid  evt_1  200  12s  done here, not recorded: the lease ran out; the relay hands it out again"},
		{"no type", adminwire.ClaimedDelivery{Source: "acme", ProviderEventID: "msg_2"}, forwarded{status: 200, outcome: "done"},
			adminwire.AckResult{Status: "done"}, nil, "09:15:04  acme  -  msg_2  200  0s  done"},
	}
	for _, tt := range tests {
		if got := listenLine(at, tt.d, tt.f, tt.res, tt.ackErr); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestListenForward checks what the local server receives: the raw bytes
// and the delivered headers, and that a redirect is an answer, not
// followed.
func TestListenForward(t *testing.T) {
	t.Parallel()
	body := []byte("{\"id\": \"evt_1\",\n \"type\": \"invoice.paid\"}\n")
	type seen struct {
		body   []byte
		header http.Header
	}
	got := make(chan seen, 4)
	followed := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{b, r.Header.Clone()}
		w.Header().Set("hookrelay-outcome", "skipped")
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("POST /moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/elsewhere", func(http.ResponseWriter, *http.Request) { followed <- struct{}{} })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	d := adminwire.ClaimedDelivery{
		BodyBase64: base64.StdEncoding.EncodeToString(body),
		Headers: map[string]string{
			"Webhook-Id": "01J0", "Webhook-Signature": "v1,abc", "Content-Type": "application/json",
			"Hookrelay-Event-Id": "evt_1", "Content-Length": "3", "Host": "evil.example",
		},
	}
	l := &listener{local: &http.Client{Timeout: listenForwardTimeout, CheckRedirect: delivery.NoRedirects}}
	l.cfg.forwardTo = srv.URL + "/hooks"
	f := l.forward(context.Background(), d)
	if f.status != 202 || f.outcome != adminwire.OutcomeSkipped || f.err != "" {
		t.Fatalf("forward = %+v, want 202 skipped", f)
	}
	s := <-got
	if !bytes.Equal(s.body, body) {
		t.Errorf("body %q, want %q", s.body, body)
	}
	for k, want := range map[string]string{"Webhook-Id": "01J0", "Webhook-Signature": "v1,abc", "Content-Type": "application/json", "Hookrelay-Event-Id": "evt_1"} {
		if s.header.Get(k) != want {
			t.Errorf("header %s = %q, want %q", k, s.header.Get(k), want)
		}
	}

	l.cfg.forwardTo = srv.URL + "/moved"
	if f := l.forward(context.Background(), d); f.status != 307 || f.outcome != adminwire.OutcomeFailed {
		t.Errorf("forward to a redirect = %+v, want 307 failed", f)
	}
	select {
	case <-followed:
		t.Error("the redirect was followed")
	default:
	}

	srv.Close()
	l.cfg.forwardTo = srv.URL + "/hooks"
	if f := l.forward(context.Background(), d); f.status != 0 || f.outcome != adminwire.OutcomeFailed || !strings.Contains(f.err, "refused") {
		t.Errorf("forward to a closed server = %+v, want failed: connection refused", f)
	}
}
