package receiver

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestRefusalFloodLogsBounded checks that a flood of requests to unknown
// sources writes a bounded number of log lines, while every one is answered
// 404 and counted.
func TestRefusalFloodLogsBounded(t *testing.T) {
	t.Parallel()
	var logs lockedLog
	rc := New(Options{
		Metrics: NewMetrics(prometheus.NewRegistry()),
		Logger:  slog.New(slog.NewJSONHandler(&logs, nil)),
	})
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/{source}", rc)
	start := time.Now()
	const requests = 2000
	for i := range requests {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/webhooks/nope", strings.NewReader("{}")))
		if rec.Code != http.StatusNotFound {
			t.Fatalf("request %d: %d, want 404", i, rec.Code)
		}
	}
	elapsed := time.Since(start)
	lines := strings.Count(logs.b.String(), "\n")
	if limit := logsPerSecond + int(elapsed.Seconds()*logsPerSecond) + 1; lines > limit {
		t.Errorf("%d log lines for %d refused requests in %s, want at most %d", lines, requests, elapsed, limit)
	}
	if lines == 0 {
		t.Error("no refusal was logged at all")
	}
}
