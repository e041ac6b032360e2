package signature

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Mailgun's body fields: the signature object travels inside the JSON body.
const (
	mailgunTimestamp = "signature.timestamp"
	mailgunToken     = "signature.token"
	mailgunSignature = "signature.signature"
)

// mailgunSigned is what Mailgun signs: the timestamp then the token. The
// body itself is not signed.
var mailgunSigned = template{{kind: partTimestamp}, {kind: partID}}

// mailgun verifies the body's signature object: signature.signature is the
// hex HMAC-SHA256 of signature.timestamp followed by signature.token, keyed
// with the webhook signing key. Because Mailgun does not sign the rest of
// the body, the token is the event's id: a token is stored once, and a
// request that reuses it within the tolerance is a duplicate, never a
// second event. A reused token outside the tolerance is stale.
type mailgun struct {
	common
	noHandshake
	keys keyring
}

func newMailgun(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	return &mailgun{common: c, keys: keys}, nil
}

func (*mailgun) Name() string { return "mailgun" }

func (m *mailgun) Verify(req Request) (Result, error) {
	if !m.keys.active() {
		return failed(ErrNoSecret)
	}
	ts, token, sig := bodyString(req.Body, mailgunTimestamp), bodyString(req.Body, mailgunToken), bodyString(req.Body, mailgunSignature)
	if ts == "" || token == "" || sig == "" {
		return failed(fmt.Errorf("read body fields %s, %s and %s: %w", mailgunTimestamp, mailgunToken, mailgunSignature, ErrMissingSignature))
	}
	t, ok := parseUnix(ts)
	if !ok {
		return failed(fmt.Errorf("read body field %s: not unix seconds: %w", mailgunTimestamp, ErrMalformedSignature))
	}
	slot, matched := m.keys.match(mailgunSigned, &content{timestamp: ts, id: token}, hexEncoding, []string{sig})
	return verdict(slot, matched, t, true, req.now(), m.tolerance)
}

// Identify takes the signature's token as the id, the type from
// event-data.event and occurred_at from event-data.timestamp (unix seconds
// with a fraction).
func (m *mailgun) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = bodyID(req.Body, mailgunToken)
	id.Type = bodyString(req.Body, "event-data.event")
	if whole, _, _ := strings.Cut(bodyString(req.Body, "event-data.timestamp"), "."); whole != "" {
		id.OccurredAt, _ = parseUnix(whole)
	}
	return m.fields.complete(req, id, need{id: "body field " + mailgunToken})
}

// signRequest writes a signature object with a fresh token into the body,
// as Mailgun does on each send.
func (m *mailgun) signRequest(slot int, msg Message) (SignedRequest, error) {
	var raw [25]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return SignedRequest{}, fmt.Errorf("make token: %w", err)
	}
	token, ts := hex.EncodeToString(raw[:]), formatUnix(msg.now())
	sig, err := m.keys.sign(slot, mailgunSigned, &content{timestamp: ts, id: token}, hexEncoding)
	if err != nil {
		return SignedRequest{}, err
	}
	obj, err := json.Marshal(map[string]string{"timestamp": ts, "token": token, "signature": sig})
	if err != nil {
		return SignedRequest{}, err
	}
	body, err := setBodyField(msg.Body, "signature", obj)
	if err != nil {
		return SignedRequest{}, err
	}
	return SignedRequest{Header: jsonHeader(), Body: body}, nil
}
