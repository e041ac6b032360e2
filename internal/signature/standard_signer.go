package signature

import "time"

// StandardSigner signs as SignStandard does, with a secret decoded once:
// a delivery signs every attempt with the same secret.
type StandardSigner struct {
	s *standard
}

// NewStandardSigner decodes a whsec_ secret into a signer. It fails when
// the secret is not a Standard Webhooks secret.
func NewStandardSigner(secret string) (*StandardSigner, error) {
	s, err := newStandard(Options{Secrets: []string{secret}}, common{})
	if err != nil {
		return nil, err
	}
	return &StandardSigner{s: s.(*standard)}, nil
}

// Sign returns the Standard Webhooks signature "v1,<base64>" of (id, ts,
// body), as a destination receives it in webhook-signature. It is safe
// for concurrent use.
func (s *StandardSigner) Sign(id string, ts time.Time, body []byte) (string, error) {
	h, err := s.s.sign(0, Message{ID: id, Body: body, Now: ts})
	if err != nil {
		return "", err
	}
	return h.Get(webhookHeaders.signature), nil
}
