package signature

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"

	"github.com/hookrelay/hookrelay/internal/store"
)

// metaHeader is the header Meta (WhatsApp, Messenger, Instagram) signs
// with.
var metaHeader = http.CanonicalHeaderKey("X-Hub-Signature-256")

// meta verifies "X-Hub-Signature-256: sha256=<hex>", the HMAC-SHA256 of the
// body keyed with the app secret, and Meta's subscription check: a GET
// whose hub.mode is subscribe and whose hub.verify_token is the source's
// verify_token, answered with hub.challenge.
type meta struct {
	common
	keys        keyring
	verifyToken []byte
}

func newMeta(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, nil)
	if err != nil {
		return nil, err
	}
	return &meta{common: c, keys: keys, verifyToken: []byte(o.VerifyToken)}, nil
}

func (*meta) Name() string { return "meta" }

// AcceptsGET reports true: Meta checks a subscription with a GET.
func (*meta) AcceptsGET() bool { return true }

func (m *meta) Verify(req Request) (Result, error) {
	if req.method() == http.MethodGet {
		return m.verifySubscription(req)
	}
	if !m.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := prefixed(req.Header, metaHeader, "sha256=")
	if err != nil {
		return failed(err)
	}
	slot, mac, ok := m.keys.matchMAC(bodyOnly, &content{body: req.Body}, hexEncoding, []string{sig})
	return bodySigned(slot, mac, ok)
}

// verifySubscription checks Meta's subscription GET: hub.mode=subscribe,
// a hub.challenge to answer, and the configured hub.verify_token. Nothing
// is signed, so the result has no slot.
func (m *meta) verifySubscription(req Request) (Result, error) {
	if len(m.verifyToken) == 0 {
		return failed(fmt.Errorf("verify_token is not set: %w", ErrNoSecret))
	}
	q, err := url.ParseQuery(req.RawQuery)
	if err != nil {
		return failed(fmt.Errorf("read query: %w", ErrMalformedSignature))
	}
	token := q.Get("hub.verify_token")
	switch {
	case q.Get("hub.mode") == "" || token == "" || q.Get("hub.challenge") == "":
		return failed(fmt.Errorf("read hub.mode, hub.verify_token and hub.challenge: %w", ErrMissingSignature))
	case q.Get("hub.mode") != "subscribe":
		return failed(fmt.Errorf("read hub.mode: not subscribe: %w", ErrMalformedSignature))
	}
	if subtle.ConstantTimeCompare([]byte(token), m.verifyToken) != 1 {
		return untimed(0, false)
	}
	return Result{Slot: store.NoSlot}, nil
}

// Identify reads the type from the body's object (page, instagram,
// whatsapp_business_account). Meta sends no event id: the id is the body
// hash, the same on a retry of the same batch.
func (m *meta) Identify(req Request) (Identity, error) {
	var id Identity
	id.Type = bodyString(req.Body, "object")
	return m.fields.complete(req, id, need{})
}

// Handshake answers a verified subscription GET with its hub.challenge.
func (m *meta) Handshake(req Request) (Handshake, bool) {
	if req.method() != http.MethodGet {
		return Handshake{}, false
	}
	q, err := url.ParseQuery(req.RawQuery)
	if err != nil || q.Get("hub.challenge") == "" {
		return Handshake{}, false
	}
	return Handshake{Body: []byte(q.Get("hub.challenge")), ContentType: "text/plain"}, true
}

func (m *meta) sign(slot int, msg Message) (http.Header, error) {
	sig, err := m.keys.sign(slot, bodyOnly, &content{body: msg.Body}, hexEncoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(metaHeader, "sha256="+sig)
	return h, nil
}
