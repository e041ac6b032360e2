package signature

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// generic is the configurable "hmac" scheme: a header carrying an
// optionally prefixed hex or base64 HMAC of a signed-content template, with
// an optional signed timestamp header.
type generic struct {
	common
	noHandshake
	opts   HMACOptions
	keys   keyring
	tmpl   template
	enc    encoding
	usesID bool // the template signs the value of the id header
}

func newHMAC(o Options, c common) (Scheme, error) {
	h := o.HMAC
	h.Header, h.TimestampHeader = canonical(h.Header), canonical(h.TimestampHeader)
	if h.Header == "" {
		return nil, errors.New("hmac: header is required")
	}
	newHash, err := hashByName(h.Algorithm)
	if err != nil {
		return nil, fmt.Errorf("hmac: %w", err)
	}
	enc, err := encodingByName(h.Encoding)
	if err != nil {
		return nil, fmt.Errorf("hmac: %w", err)
	}
	signed := h.SignedContent
	if signed == "" {
		signed = "{body}"
		if h.TimestampHeader != "" {
			signed = "{timestamp}.{body}"
		}
	}
	tmpl, err := parseTemplate(signed)
	if err != nil {
		return nil, fmt.Errorf("hmac: %w", err)
	}
	switch usesTS := tmpl.uses(partTimestamp); {
	case usesTS && h.TimestampHeader == "":
		return nil, errors.New("hmac: signed content uses {timestamp} but no timestamp header is set")
	case !usesTS && h.TimestampHeader != "":
		return nil, errors.New("hmac: a timestamp header is set but the signed content lacks {timestamp}; an unsigned timestamp proves nothing")
	}
	usesID := tmpl.uses(partID)
	if usesID && o.IDHeader == "" {
		return nil, errors.New("hmac: signed content uses {id} but no id header is set")
	}
	keys, err := newKeyring(o.Secrets, newHash, nil)
	if err != nil {
		return nil, err
	}
	return &generic{common: c, opts: h, keys: keys, tmpl: tmpl, enc: enc, usesID: usesID}, nil
}

func (*generic) Name() string { return "hmac" }

func (g *generic) Verify(req Request) (Result, error) {
	if !g.keys.active() {
		return failed(ErrNoSecret)
	}
	sig, err := prefixed(req.Header, g.opts.Header, g.opts.Prefix)
	if err != nil {
		return failed(err)
	}
	c := content{body: req.Body}
	var ts time.Time
	hasTS := g.opts.TimestampHeader != ""
	if hasTS {
		if c.timestamp, ts, err = signedTime(req.Header, g.opts.TimestampHeader); err != nil {
			return failed(err)
		}
	}
	if g.usesID {
		if c.id, err = required(req.Header, g.fields.idHeader); err != nil {
			return failed(err)
		}
	}
	slot, mac, ok := g.keys.matchMAC(g.tmpl, &c, g.enc, []string{sig})
	res, err := verdict(slot, ok, ts, hasTS, req.now(), g.tolerance)
	if err == nil && !hasTS && !g.usesID {
		res.BodySignature = mac
	}
	return res, err
}

// Identify reads the configured id header or field, else hashes the body;
// the type is the configured header or field, else empty.
func (g *generic) Identify(req Request) (Identity, error) {
	return g.fields.complete(req, Identity{}, need{})
}

func (g *generic) sign(slot int, msg Message) (http.Header, error) {
	if g.usesID && msg.ID == "" {
		return nil, errors.New("the signed content uses {id}: a message id is required")
	}
	c := content{id: msg.ID, body: msg.Body}
	h := http.Header{}
	if g.opts.TimestampHeader != "" {
		c.timestamp = formatUnix(msg.now())
		h.Set(g.opts.TimestampHeader, c.timestamp)
	}
	sig, err := g.keys.sign(slot, g.tmpl, &c, g.enc)
	if err != nil {
		return nil, err
	}
	h.Set(g.opts.Header, g.opts.Prefix+sig)
	g.fields.setHeaders(h, msg)
	return h, nil
}
