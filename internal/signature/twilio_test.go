package signature

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

var twilioCase = schemeCase{
	opts:         Options{Scheme: "twilio", PublicURL: "https://relay.example.com/webhooks/twilio"},
	secret:       plainSecret,
	required:     []string{"X-Twilio-Signature"},
	malform:      func(h http.Header) { h.Set("X-Twilio-Signature", "!"+h.Get("X-Twilio-Signature")) },
	malformedErr: ErrMismatch,
}

func TestTwilioVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, twilioCase)
}

// TestTwilioVectors runs the vectors of Twilio's Python library: public_url
// is the called URL without its query, which the request carries.
func TestTwilioVectors(t *testing.T) {
	t.Parallel()
	runVectorsWith(t, func(v vector, o *Options, r *Request) {
		u, err := url.Parse(v.URL)
		if err != nil {
			panic(err)
		}
		r.RawQuery, u.RawQuery = u.RawQuery, ""
		o.Secrets, o.PublicURL = []string{v.Secret}, u.String()
	}, Options{Scheme: "twilio"}, map[string]error{
		"twilio-json-body-tampered":  ErrMismatch,
		"twilio-wrong-signature":     ErrMismatch,
		"twilio-noncanonical-base64": ErrMismatch,
	}, nil, "twilio")
}

// TestTwilioForm signs a form body and checks that its parameters, not
// only the URL, are signed.
func TestTwilioForm(t *testing.T) {
	t.Parallel()
	o := twilioCase.with("a")
	form := []byte("MessageSid=SM1&MessageStatus=delivered&To=%2B1555&To=%2B1444")
	r, err := SignRequest(o, 0, Message{ID: "idem-1", Body: form})
	if err != nil {
		t.Fatal(err)
	}
	if r.RawQuery != "" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Fatalf("signed form: query %q, header %v", r.RawQuery, r.Header)
	}
	req := Request{Header: r.Header, Body: r.Body}
	if _, err := verify(t, o, req); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	req.Body = []byte("MessageSid=SM1&MessageStatus=failed&To=%2B1555&To=%2B1444")
	if _, err := verify(t, o, req); !errors.Is(err, ErrMismatch) {
		t.Errorf("changed parameter: %v; want ErrMismatch", err)
	}
	req.Body, req.RawQuery = form, "extra=1"
	if _, err := verify(t, o, req); !errors.Is(err, ErrMismatch) {
		t.Errorf("changed query: %v; want ErrMismatch", err)
	}
	s, _ := New(o)
	id, err := s.Identify(Request{Header: r.Header, Body: form})
	if err != nil || id.ID != "idem-1" || id.Origin != store.IDFromHeader || id.Type != "delivered" {
		t.Errorf("Identify = %+v, %v", id, err)
	}
}

func TestTwilioParams(t *testing.T) {
	t.Parallel()
	form, _ := url.ParseQuery("b=2&a=1&Sid=x&SidAccount=y&Digits=5678&Digits=1234&Digits=1234")
	if got, want := twilioParams(form), "Digits1234Digits5678SidxSidAccountya1b2"; got != want {
		t.Errorf("twilioParams = %q; want %q", got, want)
	}
}

func TestTwilioNeedsPublicURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "/webhooks/twilio", "://x"} {
		if _, err := New(Options{Scheme: "twilio", PublicURL: u}); err == nil {
			t.Errorf("public_url %q accepted", u)
		}
	}
}
