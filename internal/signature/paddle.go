package signature

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// paddleHeader is the header Paddle Billing signs with.
var paddleHeader = http.CanonicalHeaderKey("Paddle-Signature")

// paddleTS is what Paddle signs: "<ts>:<body>".
var paddleTS = mustTemplate("{timestamp}:{body}")

// paddle verifies Paddle Billing's "Paddle-Signature: ts=<unix>;h1=<hex>",
// the hex HMAC-SHA256 of "<ts>:<body>" keyed with the endpoint's secret key
// as written (pdl_ntfset_…). While a secret key is rotated the header holds
// several h1 entries, any of which may match.
type paddle struct {
	common
	noHandshake
	keys keyring
}

func newPaddle(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	return &paddle{common: c, keys: keys}, nil
}

func (*paddle) Name() string { return "paddle" }

func (p *paddle) Verify(req Request) (Result, error) {
	if !p.keys.active() {
		return failed(ErrNoSecret)
	}
	v, err := required(req.Header, paddleHeader)
	if err != nil {
		return failed(err)
	}
	var buf [4]string
	ts, t, sigs, err := parsePaddleHeader(v, buf[:0])
	if err != nil {
		return failed(err)
	}
	slot, ok := p.keys.match(paddleTS, &content{timestamp: ts, body: req.Body}, hexEncoding, sigs)
	return verdict(slot, ok, t, true, req.now(), p.tolerance)
}

// parsePaddleHeader reads "ts=<unix>;h1=<hex>[;h1=<hex>...]": the text of
// ts (what was signed), the time it says, and the h1 signatures appended
// to sigs. It is malformed without exactly one numeric ts, without an h1,
// or with more than maxSignatures of them; unknown keys are ignored.
func parsePaddleHeader(v string, sigs []string) (ts string, t time.Time, _ []string, _ error) {
	for item := range strings.SplitSeq(v, ";") {
		key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return "", t, nil, fmt.Errorf("read %s: item %q is not key=value: %w", paddleHeader, item, ErrMalformedSignature)
		}
		switch key {
		case "ts":
			parsed, ok := parseUnix(val)
			if !ok || ts != "" {
				return "", t, nil, fmt.Errorf("read %s: bad or repeated ts=: %w", paddleHeader, ErrMalformedSignature)
			}
			ts, t = val, parsed
		case "h1":
			if len(sigs) == maxSignatures {
				return "", t, nil, tooMany(paddleHeader)
			}
			sigs = append(sigs, val)
		}
	}
	if ts == "" {
		return "", t, nil, fmt.Errorf("read %s: no ts=: %w", paddleHeader, ErrMalformedSignature)
	}
	if len(sigs) == 0 {
		return "", t, nil, fmt.Errorf("read %s: no h1= signature: %w", paddleHeader, ErrMalformedSignature)
	}
	return ts, t, sigs, nil
}

// Identify reads event_id, event_type and occurred_at (RFC 3339) from the
// body; the id and type are required.
func (p *paddle) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = bodyID(req.Body, "event_id")
	id.Type = bodyString(req.Body, "event_type")
	id.OccurredAt = parseRFC3339(bodyString(req.Body, "occurred_at"))
	return p.fields.complete(req, id, need{id: "body field event_id", typ: "body field event_type"})
}

func (p *paddle) sign(slot int, msg Message) (http.Header, error) {
	ts := formatUnix(msg.now())
	sig, err := p.keys.sign(slot, paddleTS, &content{timestamp: ts, body: msg.Body}, hexEncoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(paddleHeader, "ts="+ts+";h1="+sig)
	return h, nil
}
