package hookrelay_test

import (
	"context"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/hookrelaytest"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestReceiverForMountsAnywhere mounts the receiver at the application's
// own paths — the source from a path value, and fixed — and posts signed
// Stripe events there, on both drivers: each is stored and handled, and a
// source the relay does not have is answered as Receiver answers one at
// /webhooks/{source}.
func TestReceiverForMountsAnywhere(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				return insertEffect(ctx, tx, ev, "paid")
			})
		})
		mux := http.NewServeMux()
		mux.Handle("POST /hooks/{provider}", b.relay.ReceiverFor(hookrelay.SourceFromPath("provider")))
		mux.Handle("POST /stripe", b.relay.ReceiverFor(hookrelay.FixedSource("stripe")))
		mux.Handle("POST /legacy", b.relay.ReceiverFor(hookrelay.FixedSource("legacy")))
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)

		post := func(url, id string) (int, string) {
			t.Helper()
			ev := hookrelaytest.NewEvent("stripe", "checkout.session.completed",
				stripeEvent(id, "checkout.session.completed", "ord_"+id, time.Now()))
			req, err := hookrelaytest.SignedRequest(b.relay, url, ev)
			if err != nil {
				t.Fatal(err)
			}
			return testkit.Send(t, req)
		}

		for path, id := range map[string]string{"/hooks/stripe": "evt_path", "/stripe": "evt_fixed"} {
			if code, text := post(srv.URL+path, id); code != http.StatusOK || text != `{"status":"stored"}` {
				t.Errorf("POST %s: %d %s, want 200 stored", path, code, text)
			}
		}
		for _, id := range []string{"evt_path", "evt_fixed"} {
			b.waitStatus(t, id, "orders", "done")
		}
		if got := b.app.strings(t, `SELECT event_id FROM effects ORDER BY event_id`); !slices.Equal(got, []string{"evt_fixed", "evt_path"}) {
			t.Errorf("effects = %v, want both events handled once", got)
		}

		wantCode, wantText := post(b.ingest+"/webhooks/nope", "evt_unknown")
		if wantCode != http.StatusNotFound {
			t.Fatalf("Receiver answered an unknown source %d %s, want 404", wantCode, wantText)
		}
		for _, path := range []string{"/hooks/nope", "/legacy"} {
			if code, text := post(srv.URL+path, "evt_unknown"); code != wantCode || text != wantText {
				t.Errorf("POST %s: %d %s, want %d %s as Receiver answers an unknown source", path, code, text, wantCode, wantText)
			}
		}
	})
}

func TestReceiverForBeforeStartAnswers503(t *testing.T) {
	t.Parallel()
	r, err := hookrelay.New(hookrelay.Config{Database: testdb.SQLiteURL(t)})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptestRecorder(r.ReceiverFor(hookrelay.FixedSource("stripe")), http.MethodPost, "/stripe")
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("status %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}

func TestReceiverForPanicsWithoutASource(t *testing.T) {
	t.Parallel()
	r, err := hookrelay.New(hookrelay.Config{Database: testdb.SQLiteURL(t)})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"SourceFromPath(\"\")": func() { hookrelay.SourceFromPath("") },
		"FixedSource(\"\")":    func() { hookrelay.FixedSource("") },
		"ReceiverFor(nil)":     func() { r.ReceiverFor(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}

// An application mounts the receiver at paths of its own: one that names
// the source in a path value, and one for a single provider.
func ExampleRelay_ReceiverFor() {
	relay, err := hookrelay.New(hookrelay.Config{
		Database: "postgres://app@localhost:5432/app",
		Sources:  []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{"whsec_dGVzdC1zZWNyZXQ"}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/{provider}", relay.ReceiverFor(hookrelay.SourceFromPath("provider"))) // POST /hooks/stripe
	mux.Handle("POST /stripe/events", relay.ReceiverFor(hookrelay.FixedSource("stripe")))
	_ = mux // served by the application's http.Server, once relay.Start returned
}
