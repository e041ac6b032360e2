package signature

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
)

// Zoom's headers.
var (
	zoomSignature = http.CanonicalHeaderKey("X-Zm-Signature")
	zoomTimestamp = http.CanonicalHeaderKey("X-Zm-Request-Timestamp")
)

// zoomValidation is the event of Zoom's endpoint validation request.
const zoomValidation = "endpoint.url_validation"

// zoom verifies "x-zm-signature: v0=<hex>", the HMAC-SHA256 of
// "v0:<x-zm-request-timestamp>:<body>" keyed with the app's secret token,
// and answers the endpoint.url_validation challenge.
type zoom struct {
	common
	keys keyring
}

func newZoom(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	return &zoom{common: c, keys: keys}, nil
}

func (*zoom) Name() string { return "zoom" }

func (z *zoom) Verify(req Request) (Result, error) {
	if !z.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := prefixed(req.Header, zoomSignature, "v0=")
	if err != nil {
		return failed(err)
	}
	raw, ts, err := signedTime(req.Header, zoomTimestamp)
	if err != nil {
		return failed(err)
	}
	slot, matched := z.keys.match(slackV0, &content{timestamp: raw, body: req.Body}, hexEncoding, []string{sig})
	return verdict(slot, matched, ts, true, req.now(), z.tolerance)
}

// Identify reads the type from event and occurred_at from event_ts (unix
// milliseconds). Zoom sends no event id: the id is the body hash, which
// is the same on a retry of the same notification.
func (z *zoom) Identify(req Request) (Identity, error) {
	var id Identity
	id.Type = bodyString(req.Body, "event")
	id.OccurredAt = bodyUnixMilli(req.Body, "event_ts")
	return z.fields.complete(req, id, need{})
}

// Handshake answers endpoint.url_validation with the plain token and its
// hex HMAC-SHA256 keyed with the secret token that signed the request.
func (z *zoom) Handshake(req Request) (Handshake, bool) {
	if bodyString(req.Body, "event") != zoomValidation {
		return Handshake{}, false
	}
	plain := bodyString(req.Body, "payload.plainToken")
	if plain == "" {
		return Handshake{}, false
	}
	res, err := z.Verify(req)
	if err != nil {
		return Handshake{}, false
	}
	st := z.keys[res.Slot].compute(bodyOnly, &content{body: []byte(plain)})
	encrypted := hex.EncodeToString(st.digest())
	st.release()
	b, err := json.Marshal(struct {
		PlainToken     string `json:"plainToken"`
		EncryptedToken string `json:"encryptedToken"`
	}{plain, encrypted})
	if err != nil {
		return Handshake{}, false
	}
	return Handshake{Body: b, ContentType: "application/json"}, true
}

func (z *zoom) sign(slot int, msg Message) (http.Header, error) {
	ts := formatUnix(msg.now())
	sig, err := z.keys.sign(slot, slackV0, &content{timestamp: ts, body: msg.Body}, hexEncoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(zoomTimestamp, ts)
	h.Set(zoomSignature, "v0="+sig)
	return h, nil
}
