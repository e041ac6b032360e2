package hookrelaytest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/hookrelaytest"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// provider is a source of the relay under test and an event its provider
// sends.
type provider struct {
	source hookrelay.Source
	typ    string
	body   string
}

// providers sign in the ways a scheme can: Stripe in a header over the
// body, GitHub and Standard Webhooks with the id and type in headers,
// Shopify over the body alone, Linear with its send time written into the
// body.
var providers = []provider{
	{hookrelay.Source{Name: "stripe", Verify: "stripe", Secrets: []string{"whsec_c3RyaXBlLXNlY3JldA"}},
		"invoice.paid", `{"id":"evt_stripe","type":"invoice.paid"}`},
	{hookrelay.Source{Name: "github", Verify: "github", Secrets: []string{"github-secret"}},
		"push", `{"ref":"refs/heads/main"}`},
	{hookrelay.Source{Name: "acme", Verify: "standard", Secrets: []string{"whsec_c3RhbmRhcmQtc2VjcmV0"}},
		"user.created", `{"type":"user.created","data":{}}`},
	{hookrelay.Source{Name: "shop", Verify: "shopify", Secrets: []string{"shopify-secret"}},
		"orders/create", `{"id":820982911946154508}`},
	{hookrelay.Source{Name: "linear", Verify: "linear", Secrets: []string{"linear-secret"}},
		"Issue.create", `{"type":"Issue","action":"create","data":{}}`},
}

// TestSignedRequestIsVerifiedAndHandled posts a request SignedRequest
// made for each provider to a started Relay's Receiver on an httptest
// server, on both drivers: each is verified and stored (200), and the
// handler sees the event it was made of, its id, type and headers. A body
// changed after signing is refused, so the 200 comes from the signature.
func TestSignedRequestIsVerifiedAndHandled(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, a *app) {
		cfg := hookrelay.Config{Database: a.url}
		var sources []string
		for _, p := range providers {
			cfg.Sources = append(cfg.Sources, p.source)
			sources = append(sources, p.source.Name)
		}
		r, err := hookrelay.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r.Handle(hookrelay.Destination{Name: "seen", Sources: sources, Backoff: []time.Duration{10 * time.Millisecond}},
			func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				return record(ctx, tx, ev, fmt.Sprintf("%s %s %s", ev.Source, ev.Type, ev.Header.Get("X-Test")))
			})
		if err := r.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		srv := httptest.NewServer(r.Receiver())
		t.Cleanup(srv.Close)

		var want []string
		for _, p := range providers {
			ev := hookrelaytest.NewEvent(p.source.Name, p.typ, p.body)
			ev.Header.Set("X-Test", "from-"+p.source.Name)
			req, err := hookrelaytest.SignedRequest(r, srv.URL+"/webhooks/"+p.source.Name, ev)
			if err != nil {
				t.Fatalf("%s: %v", p.source.Name, err)
			}
			if code, text := testkit.Send(t, req); code != http.StatusOK {
				t.Errorf("%s: %d %s, want 200", p.source.Name, code, text)
			}
			want = append(want, fmt.Sprintf("%s %s %s from-%s", ev.ProviderEventID, p.source.Name, p.typ, p.source.Name))

			forged, err := hookrelaytest.SignedRequest(r, srv.URL+"/webhooks/"+p.source.Name, ev)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(forged.Body)
			body = append(body, ' ') // the same JSON, other bytes
			forged.Body, forged.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			if code, text := testkit.Send(t, forged); code == http.StatusOK {
				t.Errorf("%s: a body changed after signing was answered %d %s", p.source.Name, code, text)
			}
		}
		slices.Sort(want)
		testkit.Eventually(t, 15*time.Second, "every event handled", func() error {
			got := a.effects(t)
			return testkit.Check(slices.Equal(got, want), "effects %q, want %q", got, want)
		})
	})
}

// TestSignedRequestRefuses checks that SignedRequest makes no request
// for a source the relay does not have, nor for one whose provider signs
// with a private key a test does not have.
func TestSignedRequestRefuses(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "hookrelay.yaml")
	yaml := "sources:\n  - {name: bot, verify: discord, public_keys: [" + strings.Repeat("ab", 32) + "]}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := hookrelay.New(hookrelay.Config{File: file, Sources: []hookrelay.Source{providers[0].source}})
	if err != nil {
		t.Fatal(err)
	}
	for _, source := range []string{"nope", "bot"} {
		if _, err := hookrelaytest.SignedRequest(r, "http://127.0.0.1/webhooks/"+source, hookrelaytest.NewEvent(source, "x", "{}")); err == nil {
			t.Errorf("SignedRequest signed for source %s", source)
		}
	}
}
