package signature

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestMailgunVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "mailgun"}, nil, nil, "mailgun")
}

// mailgunBody builds a Mailgun event whose signature object is signed
// with the named secret.
func mailgunBody(t *testing.T, name string, at time.Time) []byte {
	t.Helper()
	r, err := SignRequest(Options{Scheme: "mailgun", Secrets: []string{plainSecret(name)}}, 0, Message{
		Body: []byte(`{"event-data":{"id":"CPgfbmQMTCKtHW6uIWtuVe","event":"delivered","timestamp":1700000000.123}}`),
		Now:  at,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r.Body
}

func TestMailgunVerify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "mailgun", Secrets: []string{"", plainSecret("old"), plainSecret("new")}}
	for _, tt := range []struct {
		name string
		body []byte
		err  error
		slot int
	}{
		{"genuine", mailgunBody(t, "new", testNow), nil, 2},
		{"rotated", mailgunBody(t, "old", testNow), nil, 1},
		{"forged", mailgunBody(t, "guess", testNow), ErrMismatch, store.NoSlot},
		{"stale", mailgunBody(t, "new", testNow.Add(-time.Hour)), ErrStale, 2},
		{"no signature", []byte(`{"event-data":{"event":"delivered"}}`), ErrMissingSignature, store.NoSlot},
		{"not json", []byte(`token=x`), ErrMissingSignature, store.NoSlot},
		{"bad timestamp", []byte(`{"signature":{"timestamp":"soon","token":"t","signature":"00"}}`), ErrMalformedSignature, store.NoSlot},
	} {
		res, err := verify(t, o, Request{Body: tt.body, Now: testNow})
		if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) || res.Slot != tt.slot {
			t.Errorf("%s: Verify = %+v, %v; want slot %d, %v", tt.name, res, err, tt.slot, tt.err)
		}
	}
	none, _ := New(Options{Scheme: "mailgun", Secrets: []string{""}})
	if _, err := none.Verify(Request{Body: mailgunBody(t, "new", testNow)}); !errors.Is(err, ErrNoSecret) {
		t.Errorf("no secret: %v", err)
	}
}

// TestMailgunTokenIsTheID makes a replayed signature, even over another
// body, the same event: the unique provider id then stores it once.
func TestMailgunTokenIsTheID(t *testing.T) {
	t.Parallel()
	s, _ := New(Options{Scheme: "mailgun", Secrets: []string{plainSecret("a")}})
	body := mailgunBody(t, "a", testNow)
	sig := bodyString(body, "signature.signature")
	token, ts := bodyString(body, mailgunToken), bodyString(body, mailgunTimestamp)
	forgedBody := []byte(fmt.Sprintf(`{"signature":{"timestamp":%q,"token":%q,"signature":%q},"event-data":{"event":"failed"}}`, ts, token, sig))
	for _, b := range [][]byte{body, forgedBody} {
		req := Request{Body: b, Now: testNow}
		if _, err := s.Verify(req); err != nil {
			t.Fatal(err)
		}
		id, err := s.Identify(req)
		if err != nil || id.ID != token || id.Origin != store.IDFromBody {
			t.Errorf("Identify = %+v, %v; want the token %q", id, err, token)
		}
	}
	id, _ := s.Identify(Request{Body: body})
	if id.Type != "delivered" || !id.OccurredAt.Equal(testNow) {
		t.Errorf("Identify = %+v", id)
	}
}
