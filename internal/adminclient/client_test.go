package adminclient_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// TestAnswers checks how the client reads each kind of answer: the API's
// JSON, the API's error, another server's error, another server's 200, and
// no server at all.
func TestAnswers(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/stats", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.Header().Set(adminwire.APIHeader, "v1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"missing or unknown bearer token"}`))
			return
		}
		w.Header().Set(adminwire.APIHeader, "v1")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"destinations":{"d":{"done":2}},"sources":{}}`))
	})
	mux.HandleFunc("POST /api/v1/reload", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "bad gateway", http.StatusBadGateway)
	})
	mux.HandleFunc("GET /api/v1/secrets", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html></html>"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	s, data, err := adminclient.New(srv.URL, "tok").Stats(t.Context())
	if err != nil || s.Destinations["d"].Done != 2 || len(data) == 0 {
		t.Errorf("Stats = %+v, %q, %v", s, data, err)
	}

	var se *adminclient.StatusError
	_, _, err = adminclient.New(srv.URL, "").Stats(t.Context())
	if !errors.As(err, &se) || se.Status != 401 || !se.FromAPI || se.Message != "missing or unknown bearer token" {
		t.Errorf("Stats without a token: %#v", err)
	}
	_, _, err = adminclient.New(srv.URL, "tok").Reload(t.Context())
	if !errors.As(err, &se) || se.Status != 502 || se.FromAPI || se.Message != "bad gateway" {
		t.Errorf("Reload through a failing proxy: %#v", err)
	}
	if _, _, err = adminclient.New(srv.URL, "tok").Secrets(t.Context()); !errors.Is(err, adminclient.ErrNotRelay) {
		t.Errorf("Secrets from an HTML page: %v, want ErrNotRelay", err)
	}

	srv.Close()
	var ue *adminclient.UnreachableError
	if _, _, err = adminclient.New(srv.URL, "tok").Stats(t.Context()); !errors.As(err, &ue) || ue.Path != "/api/v1/stats" {
		t.Errorf("Stats of a closed server: %#v", err)
	}
}
