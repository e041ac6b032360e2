package signature

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var paddleCase = schemeCase{
	opts:        Options{Scheme: "paddle"},
	secret:      plainSecret,
	timestamped: true,
	required:    []string{"Paddle-Signature"},
	malform: func(h http.Header) {
		h.Set("Paddle-Signature", strings.Replace(h.Get("Paddle-Signature"), "ts=", "tx=", 1))
	},
	malformedErr: ErrMalformedSignature,
}

func TestPaddleVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, paddleCase)
}

func TestPaddleVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "paddle"}, map[string]error{
		"paddle-wrong-body":   ErrMismatch,
		"paddle-wrong-secret": ErrMismatch,
		"paddle-bad-format":   ErrMalformedSignature,
	}, nil, "paddle")
}

func TestParsePaddleHeader(t *testing.T) {
	t.Parallel()
	many := "ts=1700000000" + strings.Repeat(";h1=00", maxSignatures+1)
	for _, tt := range []struct {
		header string
		sigs   int
		err    error
	}{
		{"ts=1700000000;h1=ab", 1, nil},
		{"ts=1700000000;h1=ab;h1=cd", 2, nil},
		{" ts=1700000000 ; h1=ab ; x=1", 1, nil},
		{"h1=ab", 0, ErrMalformedSignature},
		{"ts=1700000000", 0, ErrMalformedSignature},
		{"ts=1700000000;ts=1700000000;h1=ab", 0, ErrMalformedSignature},
		{"ts=soon;h1=ab", 0, ErrMalformedSignature},
		{"ts=1700000000;h1", 0, ErrMalformedSignature},
		{many, 0, ErrMalformedSignature},
	} {
		_, _, sigs, err := parsePaddleHeader(tt.header, nil)
		if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) || len(sigs) != tt.sigs {
			t.Errorf("parse(%.40q) = %d sigs, %v; want %d, %v", tt.header, len(sigs), err, tt.sigs, tt.err)
		}
	}
}

func TestPaddleIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "paddle"}
	runIdentityCases(t, []identityCase{
		{name: "event", opts: o, body: `{"event_id":"evt_1","event_type":"transaction.completed","occurred_at":"2024-03-20T10:07:35.590857Z"}`,
			want: Identity{ID: "evt_1", Origin: store.IDFromBody, Type: "transaction.completed",
				OccurredAt: time.Date(2024, 3, 20, 10, 7, 35, 590857000, time.UTC)}},
		{name: "no id", opts: o, body: `{"event_type":"x"}`, wantErr: ErrMissingIdentity},
		{name: "no type", opts: o, body: `{"event_id":"evt_1"}`, wantErr: ErrMissingIdentity},
	})
}
