package receiver_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestWithSourceNamesTheSource mounts the receiver where the path names
// no source, and at a {source} the request's WithSource overrides: the
// source WithSource names is the one verified and stored, and one it
// does not know is answered as an unknown source.
func TestWithSourceNamesTheSource(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			mux := http.NewServeMux()
			mux.HandleFunc("POST /in/{name}", func(w http.ResponseWriter, r *http.Request) {
				b.receiver.ServeHTTP(w, receiver.WithSource(r, r.PathValue("name")))
			})
			mux.HandleFunc("POST /webhooks/{source}", func(w http.ResponseWriter, r *http.Request) {
				b.receiver.ServeHTTP(w, receiver.WithSource(r, "stripe"))
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)

			for _, tt := range []struct {
				path, id string
				status   int
				text     string
			}{
				{"/in/stripe", "evt_custom_path", 200, `{"status":"stored"}`},
				{"/webhooks/slack", "evt_overridden", 200, `{"status":"stored"}`},
				{"/in/nope", "evt_unknown", 404, `{"error":"unknown_source"}`},
			} {
				resp, text := do(t, signedStripe(t, srv.URL+tt.path, stripeSecret, stripeBody(tt.id, "invoice.paid"), time.Now()))
				if resp.StatusCode != tt.status || text != tt.text {
					t.Errorf("POST %s: %d %s, want %d %s", tt.path, resp.StatusCode, text, tt.status, tt.text)
				}
			}
			for _, id := range []string{"evt_custom_path", "evt_overridden"} {
				if ev := findEvent(t, b.store, "stripe", id); ev.Source != "stripe" {
					t.Errorf("event %s stored for source %q, want stripe", id, ev.Source)
				}
			}
			if n := storedEventCount(t, b.store); n != 2 {
				t.Errorf("stored %d events, want 2", n)
			}
		})
	}
}
