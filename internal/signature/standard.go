package signature

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// standardHeaders names the three headers of Standard Webhooks; Svix sends
// the same under its own prefix.
type standardHeaders struct{ id, timestamp, signature string }

var (
	webhookHeaders = newStandardHeaders("webhook-")
	svixHeaders    = newStandardHeaders("svix-")
)

// newStandardHeaders returns the canonical header names with the prefix,
// so that looking them up does not canonicalise them on every request.
func newStandardHeaders(prefix string) standardHeaders {
	return standardHeaders{
		id:        http.CanonicalHeaderKey(prefix + "id"),
		timestamp: http.CanonicalHeaderKey(prefix + "timestamp"),
		signature: http.CanonicalHeaderKey(prefix + "signature"),
	}
}

// standardSecretPrefix marks a Standard Webhooks secret.
const standardSecretPrefix = "whsec_"

// standard verifies Standard Webhooks (and Svix): webhook-signature holds
// space-separated "v1,<base64>" signatures, any of which may match the
// HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>". The key is the
// base64 secret after its optional whsec_ prefix, as the official libraries
// read it. Signatures of other versions are ignored.
type standard struct {
	common
	noHandshake
	keys keyring
}

func newStandard(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, StandardKey)
	if err != nil {
		return nil, err
	}
	return &standard{common: c, keys: keys}, nil
}

// StandardKey decodes a Standard Webhooks secret into its HMAC key. Like
// the reference libraries it strips the whsec_ prefix when present and reads
// the rest as padded standard base64. Config validation uses it, so a secret
// that validates is one that signs.
func StandardKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, standardSecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("decode %s secret as base64: %w", standardSecretPrefix, err)
	}
	if len(key) == 0 {
		return nil, errors.New("secret is empty after its " + standardSecretPrefix + " prefix")
	}
	return key, nil
}

func (*standard) Name() string { return "standard" }

// headers returns the header names the request uses: webhook-* unless
// only svix-* carries a signature.
func (*standard) headers(h http.Header) standardHeaders {
	if h.Get(webhookHeaders.signature) == "" && h.Get(svixHeaders.signature) != "" {
		return svixHeaders
	}
	return webhookHeaders
}

func (s *standard) Verify(req Request) (Result, error) {
	if !s.keys.active() {
		return failed(ErrNoSecret)
	}
	names := s.headers(req.Header)
	id, err := required(req.Header, names.id)
	if err != nil {
		return failed(err)
	}
	raw, ts, err := signedTime(req.Header, names.timestamp)
	if err != nil {
		return failed(err)
	}
	header, err := required(req.Header, names.signature)
	if err != nil {
		return failed(err)
	}
	var buf [4]string
	sigs := parseStandardSignatures(header, buf[:0])
	if len(sigs) == 0 {
		return failed(fmt.Errorf("read %s: no v1 signature: %w", names.signature, ErrMalformedSignature))
	}
	slot, matched := s.keys.match(idTimestampDot, &content{id: id, timestamp: raw, body: req.Body}, base64Encoding, sigs)
	return verdict(slot, matched, ts, true, req.now(), s.tolerance)
}

// parseStandardSignatures appends to sigs the base64 text of every
// "v1,<base64>" entry of a space-separated signature header.
func parseStandardSignatures(v string, sigs []string) []string {
	for entry := range strings.FieldsSeq(v) {
		if sig, ok := strings.CutPrefix(entry, "v1,"); ok {
			sigs = append(sigs, sig)
		}
	}
	return sigs
}

// Identify reads the id from webhook-id (or svix-id), which is required;
// the type from the body's type and occurred_at from its RFC 3339
// timestamp, when present.
func (s *standard) Identify(req Request) (Identity, error) {
	names := s.headers(req.Header)
	var id Identity
	id.ID, id.Origin = headerID(req.Header.Get(names.id))
	id.Type = bodyString(req.Body, "type")
	id.OccurredAt = parseRFC3339(bodyString(req.Body, "timestamp"))
	return s.fields.complete(req, id, need{id: names.id})
}

func (s *standard) sign(slot int, msg Message) (http.Header, error) {
	if msg.ID == "" {
		return nil, errors.New("standard needs a message id")
	}
	ts := formatUnix(msg.now())
	sig, err := s.keys.sign(slot, idTimestampDot, &content{id: msg.ID, timestamp: ts, body: msg.Body}, base64Encoding)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set(webhookHeaders.id, msg.ID)
	h.Set(webhookHeaders.timestamp, ts)
	h.Set(webhookHeaders.signature, "v1,"+sig)
	return h, nil
}

// SignStandard returns the Standard Webhooks signature "v1,<base64>" of
// (id, ts, body) with a whsec_ secret, as a destination receives it in
// webhook-signature.
func SignStandard(secret, id string, ts time.Time, body []byte) (string, error) {
	s, err := NewStandardSigner(secret)
	if err != nil {
		return "", err
	}
	return s.Sign(id, ts, body)
}
