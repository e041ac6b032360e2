package e2e

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestHealth runs `hookrelay health`, the container's health check: 0 while
// a relay answers ready, on both drivers; 1 with a message naming the URL
// when nothing listens there, the listener is not ready, or a server that
// is not a relay answers 200 there.
func TestHealth(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), stripeSource, stripeEnv)
			url := "http://" + p.admin + "/readyz"
			r := wantRun(t, nil, 0, "health", "--url", url)
			contains(t, "health of a ready relay", r.stdout, "ready: "+url+" answered 200 OK")
		})
	}

	t.Run("nothing listening", func(t *testing.T) {
		t.Parallel()
		url := "http://" + freeAddrs(t, 1)[0] + "/readyz"
		r := wantRun(t, nil, 1, "health", "--url", url)
		contains(t, "health with nothing listening", r.stderr, "hookrelay health: not ready: "+url, "connection refused")
	})

	t.Run("another server", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("OK"))
		}))
		t.Cleanup(srv.Close)
		url := srv.URL + "/readyz"
		r := wantRun(t, nil, 1, "health", "--url", url)
		contains(t, "health of another server answering 200", r.stderr,
			"hookrelay health: not ready: "+url+" answered 200 OK but not as a ready relay", "another server")
	})

	t.Run("not ready", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"storage_unavailable"}`))
		}))
		t.Cleanup(srv.Close)
		url := srv.URL + "/readyz"
		r := wantRun(t, nil, 1, "health", "--url", url)
		contains(t, "health of a relay not ready", r.stderr,
			"hookrelay health: not ready: "+url+" answered 503 Service Unavailable", "storage_unavailable")
	})
}
