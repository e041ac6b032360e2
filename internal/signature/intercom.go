package signature

import (
	"crypto/sha1"
	"net/http"
)

// intercomHeader is the header Intercom signs with.
var intercomHeader = http.CanonicalHeaderKey("X-Hub-Signature")

// intercom verifies "X-Hub-Signature: sha1=<hex>", the HMAC-SHA1 of the
// body keyed with the app's client secret.
type intercom struct {
	common
	noHandshake
	keys keyring
}

func newIntercom(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha1.New, nil)
	if err != nil {
		return nil, err
	}
	return &intercom{common: c, keys: keys}, nil
}

func (*intercom) Name() string { return "intercom" }

func (i *intercom) Verify(req Request) (Result, error) {
	if !i.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := prefixed(req.Header, intercomHeader, "sha1=")
	if err != nil {
		return failed(err)
	}
	slot, mac, ok := i.keys.matchMAC(bodyOnly, &content{body: req.Body}, hexEncoding, []string{sig})
	return bodySigned(slot, mac, ok)
}

// Identify reads the notification's id, its topic as the type and
// created_at (unix seconds); the id is required.
func (i *intercom) Identify(req Request) (Identity, error) {
	var id Identity
	id.ID, id.Origin = bodyID(req.Body, "id")
	id.Type = bodyString(req.Body, "topic")
	id.OccurredAt = bodyUnix(req.Body, "created_at")
	return i.fields.complete(req, id, need{id: "body field id"})
}

func (i *intercom) sign(slot int, msg Message) (http.Header, error) {
	sig, err := i.keys.sign(slot, bodyOnly, &content{body: msg.Body}, hexEncoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(intercomHeader, "sha1="+sig)
	return h, nil
}
