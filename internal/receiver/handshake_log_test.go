package receiver

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// graphReceiver returns the public ingest mux of a receiver on a store of
// the driver with one Microsoft Graph source, and the buffer its logs go
// to.
func graphReceiver(t *testing.T, driver testdb.Driver) (*http.ServeMux, *lockedLog) {
	t.Helper()
	scheme, err := signature.New(signature.Options{Scheme: "msgraph", Secrets: []string{"graph-client-state"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := storeopen.Open(ctx, driver.URL(t), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var logs lockedLog
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	metrics := NewMetrics(prometheus.NewRegistry())
	rejections := NewRejectionRecorder(st, RejectionOptions{}, metrics, slog.New(slog.DiscardHandler))
	t.Cleanup(rejections.Close)
	rc := New(Options{
		Sources:    []Source{{Name: "graph", Scheme: scheme, MaxBody: 1 << 20}},
		Rejections: rejections,
		Metrics:    metrics,
		Logger:     logger,
	})
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/{source}", rc)
	return mux, &logs
}

func graphValidation(token string) *http.Request {
	return httptest.NewRequest(http.MethodPost, "/webhooks/graph?validationToken="+url.QueryEscape(token), nil)
}

// TestHandshakeFloodLogsBounded checks that a flood of unauthenticated
// Microsoft Graph validation requests is answered one by one but logged
// within the refusal rate: the handshake carries no secret, so anyone can
// send it as often as they like.
func TestHandshakeFloodLogsBounded(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			mux, logs := graphReceiver(t, driver)
			start := time.Now()
			const requests = 2000
			for i := range requests {
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, graphValidation("Validation: Testing client application reachability"))
				if rec.Code != http.StatusOK {
					t.Fatalf("request %d: %d, want 200", i, rec.Code)
				}
			}
			elapsed := time.Since(start)
			lines := strings.Count(logs.b.String(), "\n")
			if limit := logsPerSecond + int(elapsed.Seconds()*logsPerSecond) + 1; lines > limit {
				t.Errorf("%d log lines for %d handshakes in %s, want at most %d", lines, requests, elapsed, limit)
			}
			if lines == 0 {
				t.Error("no handshake was logged at all")
			}
		})
	}
}

// TestHandshakeEchoIsInert checks what a Graph validation echoes back: the
// token as text/plain that no browser may sniff into HTML, and only a
// token of a bounded length made of the characters Graph sends.
func TestHandshakeEchoIsInert(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			mux, _ := graphReceiver(t, driver)
			for _, c := range []struct {
				token string
				want  int
			}{
				{"Validation: Testing client application reachability for subscription Request-Id: 3b3f9821-ce3f-4d68-9ff2-a0a0f8b3bd00", http.StatusOK},
				{"<script>alert(1)</script>", http.StatusBadRequest},
				{"a\x01b", http.StatusBadRequest},
				{"caf\u00e9", http.StatusBadRequest},
				{strings.Repeat("a", 512), http.StatusOK},
				{strings.Repeat("a", 513), http.StatusBadRequest},
			} {
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, graphValidation(c.token))
				if rec.Code != c.want {
					t.Errorf("token %.40q: %d, want %d", c.token, rec.Code, c.want)
					continue
				}
				if c.want != http.StatusOK {
					if strings.Contains(rec.Body.String(), c.token) {
						t.Errorf("token %.40q refused but echoed: %q", c.token, rec.Body.String())
					}
					continue
				}
				if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
					t.Errorf("token %.40q: X-Content-Type-Options %q, want nosniff", c.token, got)
				}
				if rec.Body.String() != c.token {
					t.Errorf("token echoed as %q", rec.Body.String())
				}
			}
		})
	}
}
