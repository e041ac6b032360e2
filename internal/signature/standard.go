package signature

import (
	"crypto/ed25519"
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
// read it. With public_keys (whpk_), "v1a,<base64>" entries are Ed25519
// signatures of the same content, checked against each key; their slots
// follow the secrets'. Signatures of other versions are ignored.
type standard struct {
	common
	noHandshake
	keys    keyring
	pubKeys slotted[ed25519.PublicKey]
}

func newStandard(o Options, c common) (Scheme, error) {
	keys, err := newKeyring(o.Secrets, sha256.New, StandardKey)
	if err != nil {
		return nil, err
	}
	pubKeys, err := publicKeys[ed25519.PublicKey]("standard", o.PublicKeys, len(o.Secrets))
	if err != nil {
		return nil, err
	}
	return &standard{common: c, keys: keys, pubKeys: pubKeys}, nil
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
	if !s.keys.active() && !s.pubKeys.active() {
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
	var buf, abuf [4]string
	sigs, asym, err := parseStandardSignatures(header, buf[:0], abuf[:0])
	if err != nil {
		return failed(fmt.Errorf("read %s: %w", names.signature, err))
	}
	c := content{id: id, timestamp: raw, body: req.Body}
	slot, matched := s.keys.match(idTimestampDot, &c, base64Encoding, sigs)
	if !matched && len(asym) > 0 {
		slot, matched = s.matchAsymmetric(&c, asym)
	}
	return verdict(slot, matched, ts, true, req.now(), s.tolerance)
}

// matchAsymmetric returns the slot of the first public key that one of the
// base64 v1a signatures verifies for the content.
func (s *standard) matchAsymmetric(c *content, asym []string) (int, bool) {
	return s.pubKeys.match(func(pub ed25519.PublicKey) bool {
		return joined(func(msg []byte) bool {
			for _, a := range asym {
				var sig [ed25519.SignatureSize + 2]byte
				if len(a) != base64.StdEncoding.EncodedLen(ed25519.SignatureSize) {
					continue
				}
				n, err := strictBase64.Decode(sig[:], []byte(a))
				if err == nil && n == ed25519.SignatureSize && ed25519.Verify(pub, msg, sig[:n]) {
					return true
				}
			}
			return false
		}, []byte(c.id), []byte("."), []byte(c.timestamp), []byte("."), c.body)
	})
}

// parseStandardSignatures appends to sigs the base64 text of every
// "v1,<base64>" entry of a space-separated signature header, and to asym
// that of every "v1a,<base64>" entry. Its error wraps
// ErrMalformedSignature when there is neither, or more than maxSignatures
// entries in all.
func parseStandardSignatures(v string, sigs, asym []string) ([]string, []string, error) {
	n := 0
	for entry := range strings.FieldsSeq(v) {
		if n++; n > maxSignatures {
			return nil, nil, fmt.Errorf("more than %d signatures: %w", maxSignatures, ErrMalformedSignature)
		}
		if sig, ok := strings.CutPrefix(entry, "v1,"); ok {
			sigs = append(sigs, sig)
		} else if sig, ok := strings.CutPrefix(entry, "v1a,"); ok {
			asym = append(asym, sig)
		}
	}
	if len(sigs) == 0 && len(asym) == 0 {
		return nil, nil, fmt.Errorf("no v1 or v1a signature: %w", ErrMalformedSignature)
	}
	return sigs, asym, nil
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
	var sig string
	if key, ok := msg.Key.(ed25519.PrivateKey); ok {
		signed := append([]byte(msg.ID+"."+ts+"."), msg.Body...)
		sig = "v1a," + base64.StdEncoding.EncodeToString(ed25519.Sign(key, signed))
	} else {
		mac, err := s.keys.sign(slot, idTimestampDot, &content{id: msg.ID, timestamp: ts, body: msg.Body}, base64Encoding)
		if err != nil {
			return nil, err
		}
		sig = "v1," + mac
	}
	h := http.Header{}
	h.Set(webhookHeaders.id, msg.ID)
	h.Set(webhookHeaders.timestamp, ts)
	h.Set(webhookHeaders.signature, sig)
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
