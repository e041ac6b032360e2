package signature

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

var sendgridCase = schemeCase{
	opts:        Options{Scheme: "sendgrid"},
	secret:      plainSecret,
	publicKey:   sendgridKey,
	timestamped: true,
	required:    []string{"X-Twilio-Email-Event-Webhook-Signature", "X-Twilio-Email-Event-Webhook-Timestamp"},
	malform: func(h http.Header) {
		h.Set("X-Twilio-Email-Event-Webhook-Signature", "!"+h.Get("X-Twilio-Email-Event-Webhook-Signature"))
	},
	malformedErr: ErrMismatch,
}

func TestSendGridVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, sendgridCase)
}

// TestSendGridVectors runs the vectors of SendGrid's Go library, at the
// time they were signed.
func TestSendGridVectors(t *testing.T) {
	t.Parallel()
	runVectorsWith(t, func(v vector, o *Options, r *Request) {
		o.PublicKeys = []string{v.Secret}
		n, _ := strconv.ParseInt(v.Headers["X-Twilio-Email-Event-Webhook-Timestamp"], 10, 64)
		r.Now = time.Unix(n, 0)
	}, Options{Scheme: "sendgrid"}, map[string]error{
		"sendgrid-wrong-payload":   ErrMismatch,
		"sendgrid-wrong-timestamp": ErrMalformedSignature,
	}, nil, "sendgrid")
}

func TestSendGridIdentify(t *testing.T) {
	t.Parallel()
	body := `[{"email":"a@example.com","event":"delivered","sg_event_id":"x"}]`
	runIdentityCases(t, []identityCase{
		{name: "batch", opts: Options{Scheme: "sendgrid"}, body: body, want: Identity{ID: hashOf(body), Origin: "hash"}},
	})
}
