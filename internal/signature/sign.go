package signature

import (
	"crypto"
	"fmt"
	"net/http"
	"time"
)

// Message is what Sign signs: an event as a provider would send it.
type Message struct {
	// ID and Type go into the headers of the schemes that carry them
	// there (X-GitHub-Delivery, webhook-id, X-Shopify-Topic, ...).
	ID, Type string
	Body     []byte
	// Now is the signing time; zero means time.Now().
	Now time.Time
	// Key signs for the public-key schemes (discord and standard's v1a take
	// an ed25519.PrivateKey, sendgrid an *ecdsa.PrivateKey); the secret
	// slot is then unused.
	Key crypto.Signer
}

func (m Message) now() time.Time {
	if m.Now.IsZero() {
		return time.Now()
	}
	return m.Now
}

// signer is implemented by every scheme that signs with headers alone;
// the others implement requestSigner.
type signer interface {
	sign(slot int, msg Message) (http.Header, error)
}

var (
	_ signer = (*stripe)(nil)
	_ signer = (*github)(nil)
	_ signer = (*shopify)(nil)
	_ signer = (*standard)(nil)
	_ signer = (*slack)(nil)
	_ signer = (*gitlab)(nil)
	_ signer = (*generic)(nil)
	_ signer = (*none)(nil)
)

// Sign returns every header the provider would send for msg, signed with
// the secret in o.Secrets[slot]: the signature, the timestamp, and the id
// and type headers the scheme reads. Schemes that read their id or type
// from headers and require them (github, standard) need msg.ID, and github
// msg.Type. Schemes that change the body or the URL (linear, mailgun,
// msgraph, twilio) are signed with SignRequest; Sign returns their headers.
func Sign(o Options, slot int, msg Message) (http.Header, error) {
	s, err := New(o)
	if err != nil {
		return nil, err
	}
	if _, ok := s.(requestSigner); ok {
		r, err := SignRequest(o, slot, msg)
		return r.Header, err
	}
	h, err := s.(signer).sign(slot, msg)
	if err != nil {
		return nil, fmt.Errorf("sign for %s: %w", o.Scheme, err)
	}
	return h, nil
}

// setIf sets the header name to v when both are non-empty.
func setIf(h http.Header, name, v string) {
	if name != "" && v != "" {
		h.Set(name, v)
	}
}
