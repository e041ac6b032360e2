package signature

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Linear's headers.
var (
	linearSignature = http.CanonicalHeaderKey("Linear-Signature")
	linearDelivery  = http.CanonicalHeaderKey("Linear-Delivery")
	linearEvent     = http.CanonicalHeaderKey("Linear-Event")
)

// linearTimestampField is the body field that carries when Linear sent the
// webhook, in unix milliseconds; it is signed with the rest of the body.
const linearTimestampField = "webhookTimestamp"

// linear verifies "Linear-Signature: <hex>", the HMAC-SHA256 of the body
// keyed with the webhook's signing secret, and the body's webhookTimestamp
// against the tolerance (by default one minute, as Linear's SDK allows).
type linear struct {
	common
	noHandshake
	keys keyring
}

func newLinear(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	return &linear{common: c, keys: keys}, nil
}

func (*linear) Name() string { return "linear" }

func (l *linear) Verify(req Request) (Result, error) {
	if !l.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := required(req.Header, linearSignature)
	if err != nil {
		return failed(err)
	}
	ts := bodyUnixMilli(req.Body, linearTimestampField)
	slot, mac, ok := l.keys.matchMAC(bodyOnly, &content{body: req.Body}, hexEncoding, []string{sig})
	if ok && ts.IsZero() {
		// The signature is genuine but the body does not say when it was
		// sent, so its freshness cannot be judged.
		return failed(fmt.Errorf("read body field %s: %w", linearTimestampField, ErrMalformedSignature))
	}
	res, err := verdict(slot, ok, ts, !ts.IsZero(), req.now(), l.tolerance)
	if err == nil {
		// The timestamp is in the body: within the tolerance, the same
		// body verifies under any Linear-Delivery.
		res.BodySignature = mac
	}
	return res, err
}

// Identify reads the id from Linear-Delivery, the type as
// "<type>.<action>" (Issue.create) from the body and occurred_at from its
// createdAt.
func (l *linear) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = headerID(req.Header.Get(linearDelivery))
	id.Type = bodyString(req.Body, "type")
	if action := bodyString(req.Body, "action"); id.Type != "" && action != "" {
		id.Type += "." + action
	}
	id.OccurredAt = parseRFC3339(bodyString(req.Body, "createdAt"))
	return l.fields.complete(req, id, need{})
}

// signRequest sets the body's webhookTimestamp to the signing time, as
// Linear does on each send, then signs the body.
func (l *linear) signRequest(slot int, msg Message) (SignedRequest, error) {
	body, err := setBodyField(msg.Body, linearTimestampField, json.RawMessage(strconv.FormatInt(msg.now().UnixMilli(), 10)))
	if err != nil {
		return SignedRequest{}, err
	}
	sig, err := l.keys.sign(slot, bodyOnly, &content{body: body}, hexEncoding)
	if err != nil {
		return SignedRequest{}, err
	}
	h := http.Header{}
	h.Set(linearSignature, sig)
	setIf(h, linearDelivery, msg.ID)
	setIf(h, linearEvent, bodyString(body, "type"))
	return SignedRequest{Header: h, Body: body}, nil
}
