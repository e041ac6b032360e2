package signature

import (
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"net/http"
)

// GitHub's headers.
var (
	githubSHA256Header = http.CanonicalHeaderKey("X-Hub-Signature-256")
	githubSHA1Header   = http.CanonicalHeaderKey("X-Hub-Signature")
	githubDelivery     = http.CanonicalHeaderKey("X-GitHub-Delivery")
	githubEvent        = http.CanonicalHeaderKey("X-GitHub-Event")
)

// github verifies "X-Hub-Signature-256: sha256=<hex>", the HMAC-SHA256 of
// the body. With AllowSHA1, a request without it may instead carry the
// legacy "X-Hub-Signature: sha1=<hex>".
type github struct {
	common
	noHandshake
	sha256Keys keyring
	sha1Keys   keyring // nil unless AllowSHA1
}

func newGitHub(o Options, c common) (Scheme, error) {
	g := &github{common: c}
	var err error
	if g.sha256Keys, err = newKeyring(o.Secrets, sha256.New, nil); err != nil {
		return nil, err
	}
	if o.AllowSHA1 {
		if g.sha1Keys, err = newKeyring(o.Secrets, sha1.New, nil); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func (*github) Name() string { return "github" }

func (g *github) Verify(req Request) (Result, error) {
	if !g.sha256Keys.active() {
		return failed(ErrNoSecret)
	}
	name, prefix, keys := githubSHA256Header, "sha256=", g.sha256Keys
	if g.sha1Keys != nil && req.Header.Get(name) == "" && req.Header.Get(githubSHA1Header) != "" {
		name, prefix, keys = githubSHA1Header, "sha1=", g.sha1Keys
	}
	sig, err := prefixed(req.Header, name, prefix)
	if err != nil {
		return failed(err)
	}
	c := &content{body: req.Body}
	slot, mac, ok := keys.matchMAC(bodyOnly, c, hexEncoding, []string{sig})
	if ok && name == githubSHA1Header {
		// The legacy signature of a body is known by its SHA-256 one, so
		// that a captured request that carried both is one signature
		// whichever header a re-post keeps.
		mac = g.sha256Keys.mac(slot, bodyOnly, c)
	}
	return bodySigned(slot, mac, ok)
}

// Identify reads X-GitHub-Delivery and X-GitHub-Event; both are required.
func (g *github) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = headerID(req.Header.Get(githubDelivery))
	id.Type = req.Header.Get(githubEvent)
	return g.fields.complete(req, id, need{id: githubDelivery, typ: githubEvent})
}

func (g *github) sign(slot int, msg Message) (http.Header, error) {
	if msg.ID == "" {
		return nil, fmt.Errorf("github needs a message id for %s: %w", githubDelivery, ErrMissingIdentity)
	}
	if msg.Type == "" {
		return nil, fmt.Errorf("github needs an event type for %s: %w", githubEvent, ErrMissingIdentity)
	}
	c := &content{body: msg.Body}
	sig, err := g.sha256Keys.sign(slot, bodyOnly, c, hexEncoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(githubSHA256Header, "sha256="+sig)
	if g.sha1Keys != nil {
		sig1, err := g.sha1Keys.sign(slot, bodyOnly, c, hexEncoding)
		if err != nil {
			return nil, err
		}
		h.Set(githubSHA1Header, "sha1="+sig1)
	}
	h.Set(githubDelivery, msg.ID)
	h.Set(githubEvent, msg.Type)
	return h, nil
}
