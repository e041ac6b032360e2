package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestNoopHandler(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(noopHandler))
	t.Cleanup(srv.Close)
	resp, err := http.Post(srv.URL+"/webhooks/stripe", "application/json", strings.NewReader(strings.Repeat("x", 1<<16)))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
}

// TestStartNoop runs the noop command as a child, posts to it and stops it
// with SIGTERM; it must exit 0.
func TestStartNoop(t *testing.T) {
	t.Setenv(asMainEnv, "1")
	p, addr, err := startNoop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		_ = p.Stop(5 * time.Second)
		t.Fatalf("address %q is not on 127.0.0.1", addr)
	}
	resp, err := http.Post("http://"+addr+"/webhooks/stripe", "application/json", bytes.NewReader([]byte(`{"id":"evt_1"}`)))
	if err != nil {
		_ = p.Stop(5 * time.Second)
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d, want 200", resp.StatusCode)
	}
	if err := p.Stop(5 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
}
