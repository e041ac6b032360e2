package signature

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
)

// SendGrid's Event Webhook headers.
var (
	sendgridSignature = http.CanonicalHeaderKey("X-Twilio-Email-Event-Webhook-Signature")
	sendgridTimestamp = http.CanonicalHeaderKey("X-Twilio-Email-Event-Webhook-Timestamp")
)

// maxECDSASignature bounds the base64 text of an ASN.1 ECDSA P-256
// signature (at most 72 bytes).
const maxECDSASignature = 128

var errSignatureTooLong = errors.New("signature too long")

// sendgrid verifies SendGrid's signed Event Webhook: the signature header
// is the base64 ASN.1 ECDSA P-256 signature of the SHA-256 of the
// timestamp header followed by the body; public_keys holds the base64
// verification key SendGrid shows.
type sendgrid struct {
	common
	noHandshake
	keys slotted[*ecdsa.PublicKey]
}

func newSendGrid(o Options, c common) (Scheme, error) {
	keys, err := publicKeys[*ecdsa.PublicKey]("sendgrid", o.PublicKeys, len(o.Secrets))
	if err != nil {
		return nil, err
	}
	return &sendgrid{common: c, keys: keys}, nil
}

func (*sendgrid) Name() string { return "sendgrid" }

func (s *sendgrid) Verify(req Request) (Result, error) {
	if !s.keys.active() {
		return failed(ErrNoSecret)
	}
	sig64, err := required(req.Header, sendgridSignature)
	if err != nil {
		return failed(err)
	}
	raw, ts, err := signedTime(req.Header, sendgridTimestamp)
	if err != nil {
		return failed(err)
	}
	var buf [maxECDSASignature]byte
	n, err := 0, errSignatureTooLong
	if len(sig64) <= maxECDSASignature {
		n, err = base64.StdEncoding.Decode(buf[:], []byte(sig64))
	}
	if err != nil {
		// A signature of the wrong length or encoding matches no key.
		return verdict(0, false, ts, true, req.now(), s.tolerance)
	}
	h := sha256.New()
	h.Write([]byte(raw))
	h.Write(req.Body)
	var digest [sha256.Size]byte
	h.Sum(digest[:0])
	slot, ok := s.keys.match(func(pub *ecdsa.PublicKey) bool { return ecdsa.VerifyASN1(pub, digest[:], buf[:n]) })
	return verdict(slot, ok, ts, true, req.now(), s.tolerance)
}

// Identify hashes the body for the id: SendGrid posts a batch of events,
// each with its own sg_event_id, in one signed request. The type is left
// to type_field.
func (s *sendgrid) Identify(req Request) (Identity, error) {
	return s.fields.complete(req, Identity{}, need{})
}

func (s *sendgrid) sign(_ int, msg Message) (http.Header, error) {
	key, ok := msg.Key.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("sendgrid signs with an ECDSA P-256 private key")
	}
	ts := formatUnix(msg.now())
	digest := sha256.Sum256(append([]byte(ts), msg.Body...))
	sig, err := ecdsa.SignASN1(rand.Reader, key, digest[:])
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	h := http.Header{}
	h.Set(sendgridTimestamp, ts)
	h.Set(sendgridSignature, base64.StdEncoding.EncodeToString(sig))
	h.Set("Content-Type", "application/json")
	return h, nil
}
