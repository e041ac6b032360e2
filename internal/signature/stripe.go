package signature

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// stripeHeader is the header Stripe signs with.
const stripeHeader = "Stripe-Signature"

// stripe verifies "Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>...]": the
// hex HMAC-SHA256 of "<t>.<body>", keyed with the whole secret string
// (whsec_ prefix included). Only v1 signatures count; v0 and unknown
// fields are ignored.
type stripe struct {
	common
	noHandshake
	keys keyring
}

func newStripe(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	return &stripe{common: c, keys: keys}, nil
}

func (*stripe) Name() string { return "stripe" }

func (s *stripe) Verify(req Request) (Result, error) {
	if !s.keys.active() {
		return failed(ErrNoSecret)
	}
	v, err := required(req.Header, stripeHeader)
	if err != nil {
		return failed(err)
	}
	var buf [4]string
	ts, t, sigs, err := parseStripeHeader(v, buf[:0])
	if err != nil {
		return failed(err)
	}
	slot, ok := s.keys.match(timestampDot, &content{timestamp: ts, body: req.Body}, hexEncoding, sigs)
	return verdict(slot, ok, t, true, req.now(), s.tolerance)
}

// parseStripeHeader reads a Stripe-Signature header: the text of its t=
// (which is what was signed) and that text read as a time, and the v1
// signatures, still hex, appended to sigs. The header is malformed unless
// it holds exactly one numeric t= and at least one v1=. The results are
// separate values, not a struct, so that sigs may stay on the caller's
// stack.
func parseStripeHeader(v string, sigs []string) (ts string, t time.Time, _ []string, _ error) {
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, val, ok := strings.Cut(item, "=")
		if !ok {
			return "", t, nil, fmt.Errorf("read %s: item %q is not key=value: %w", stripeHeader, item, ErrMalformedSignature)
		}
		switch key {
		case "t":
			parsed, ok := parseUnix(val)
			if !ok || ts != "" {
				return "", t, nil, fmt.Errorf("read %s: bad or repeated t=: %w", stripeHeader, ErrMalformedSignature)
			}
			ts, t = val, parsed
		case "v1":
			sigs = append(sigs, val)
		}
	}
	if ts == "" {
		return "", t, nil, fmt.Errorf("read %s: no t=: %w", stripeHeader, ErrMalformedSignature)
	}
	if len(sigs) == 0 {
		return "", t, nil, fmt.Errorf("read %s: no v1= signature: %w", stripeHeader, ErrMalformedSignature)
	}
	return ts, t, sigs, nil
}

// Identify reads the event's id, type and created time from the body; the
// id and type are required.
func (s *stripe) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = bodyID(req.Body, "id")
	id.Type = bodyString(req.Body, "type")
	id.OccurredAt = bodyUnix(req.Body, "created")
	return s.fields.complete(req, id, need{id: "body field id", typ: "body field type"})
}

func (s *stripe) sign(slot int, msg Message) (http.Header, error) {
	ts := formatUnix(msg.now())
	sig, err := s.keys.sign(slot, timestampDot, &content{timestamp: ts, body: msg.Body}, hexEncoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(stripeHeader, "t="+ts+",v1="+sig)
	return h, nil
}
