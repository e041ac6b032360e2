package signature

import (
	"crypto/sha256"
	"errors"
	"net/http"
)

// squareHeader is the header Square signs with.
var squareHeader = http.CanonicalHeaderKey("X-Square-Hmacsha256-Signature")

// square verifies "x-square-hmacsha256-signature: <base64>", the
// HMAC-SHA256 of the subscription's notification URL followed by the body,
// keyed with its signature key. The URL is the configured public_url,
// exactly as registered with Square.
type square struct {
	common
	noHandshake
	keys   keyring
	signed template // "<public_url>{body}"
}

func newSquare(o Options, c common) (Scheme, error) {
	if o.PublicURL == "" {
		return nil, errors.New("square: public_url is required (the notification URL Square signs)")
	}
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	signed := template{{kind: partLiteral, text: o.PublicURL}, {kind: partBody}}
	return &square{common: c, keys: keys, signed: signed}, nil
}

func (*square) Name() string { return "square" }

func (s *square) Verify(req Request) (Result, error) {
	if !s.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := required(req.Header, squareHeader)
	if err != nil {
		return failed(err)
	}
	slot, mac, ok := s.keys.matchMAC(s.signed, &content{body: req.Body}, base64Encoding, []string{sig})
	return bodySigned(slot, mac, ok)
}

// Identify reads event_id, type and created_at (RFC 3339) from the body;
// the id and type are required.
func (s *square) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = bodyID(req.Body, "event_id")
	id.Type = bodyString(req.Body, "type")
	id.OccurredAt = parseRFC3339(bodyString(req.Body, "created_at"))
	return s.fields.complete(req, id, need{id: "body field event_id", typ: "body field type"})
}

func (s *square) sign(slot int, msg Message) (http.Header, error) {
	sig, err := s.keys.sign(slot, s.signed, &content{body: msg.Body}, base64Encoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(squareHeader, sig)
	return h, nil
}
