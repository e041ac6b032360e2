package testkit

import (
	"io"
	"net/http"
	"testing"
)

// Send sends req with http.DefaultClient and returns the answer's status
// and body; it fails the test (FailNow) when no answer comes.
func Send(t testing.TB, req *http.Request) (status int, body string) {
	t.Helper()
	return SendWith(t, http.DefaultClient, req)
}

// SendWith is Send with client: its cookies, its timeout.
func SendWith(t testing.TB, client *http.Client, req *http.Request) (status int, body string) {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read the answer: %v", req.Method, req.URL, err)
	}
	return resp.StatusCode, string(text)
}
