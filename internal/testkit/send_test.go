package testkit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit"
)

func TestSendReturnsStatusAndBody(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		_, _ = w.Write([]byte(r.Method + " " + r.URL.Path))
	}))
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status, body := testkit.Send(t, req); status != http.StatusTeapot || body != "POST /x" {
		t.Errorf("Send = %d %q, want 418 \"POST /x\"", status, body)
	}
}
