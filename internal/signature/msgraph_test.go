package signature

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

const graphBody = `{"value":[{"subscriptionId":"s1","clientState":"%s","changeType":"created","resource":"Users/x/Messages/y","tenantId":"t"},` +
	`{"subscriptionId":"s1","clientState":"%s","changeType":"updated","resource":"Users/x/Messages/z","tenantId":"t"}]}`

func graphNotifications(a, b string) []byte {
	return []byte(strings.Replace(strings.Replace(graphBody, "%s", a, 1), "%s", b, 1))
}

func TestMSGraphVerify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "msgraph", Secrets: []string{"", "state-old", "state-new"}}
	for _, tt := range []struct {
		name string
		body []byte
		err  error
		slot int
	}{
		{"genuine", graphNotifications("state-new", "state-new"), nil, 2},
		{"rotation", graphNotifications("state-old", "state-new"), nil, 1},
		{"one forged", graphNotifications("state-new", "guess"), ErrMismatch, store.NoSlot},
		{"prefix of a state", graphNotifications("state-ne", "state-new"), ErrMismatch, store.NoSlot},
		{"no clientState", graphNotifications("", "state-new"), ErrMissingSignature, store.NoSlot},
		{"no notifications", []byte(`{"value":[]}`), ErrMalformedSignature, store.NoSlot},
		{"not json", []byte(`x`), ErrMalformedSignature, store.NoSlot},
	} {
		res, err := verify(t, o, Request{Body: tt.body, Header: http.Header{}})
		if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) || res.Slot != tt.slot {
			t.Errorf("%s: Verify = %+v, %v; want slot %d, %v", tt.name, res, err, tt.slot, tt.err)
		}
	}
	if _, err := verify(t, Options{Scheme: "msgraph"}, Request{Body: graphNotifications("a", "a")}); !errors.Is(err, ErrNoSecret) {
		t.Errorf("no secret: %v", err)
	}
}

// TestMSGraphValidation answers Graph's validation request with its token,
// decoded, as text/plain; it is never taken for a notification.
func TestMSGraphValidation(t *testing.T) {
	t.Parallel()
	s, _ := New(Options{Scheme: "msgraph", Secrets: []string{"state"}})
	req := Request{RawQuery: "validationToken=Validation%3a+Testing+client+application+reachability", Header: http.Header{}}
	if res, err := s.Verify(req); err != nil || res.Slot != store.NoSlot {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	h, ok := s.Handshake(req)
	if !ok || string(h.Body) != "Validation: Testing client application reachability" || h.ContentType != "text/plain" {
		t.Errorf("Handshake = %q, %v", h.Body, ok)
	}
	for _, bad := range []Request{
		{RawQuery: "validationToken=", Header: http.Header{}},
		{RawQuery: "validationToken=x", Body: graphNotifications("guess", "guess")},
		{RawQuery: "validationToken=" + strings.Repeat("x", maxValidationToken+1)},
	} {
		if _, err := s.Verify(bad); err == nil {
			t.Errorf("Verify(%.40q, body %.20q) accepted", bad.RawQuery, bad.Body)
		}
	}
	if _, ok := s.Handshake(Request{Body: graphNotifications("state", "state")}); ok {
		t.Error("a notification was answered as a handshake")
	}
}

func TestMSGraphSign(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "msgraph", Secrets: []string{"a", "b"}}
	r, err := SignRequest(o, 1, Message{Body: graphNotifications("placeholder", "")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify(t, o, Request{Header: r.Header, Body: r.Body})
	if err != nil || res.Slot != 1 {
		t.Fatalf("Verify of a signed body = %+v, %v", res, err)
	}
	s, _ := New(o)
	if id, err := s.Identify(Request{Body: r.Body}); err != nil || id.Type != "created" || id.Origin != store.IDFromHash {
		t.Errorf("Identify = %+v, %v", id, err)
	}
}
