package config

import (
	"crypto/sha256"
	"encoding/hex"
)

// SecretFingerprint names a signing secret or public key without
// revealing it: the rotation status counts each secret's use under it, so
// that nodes that list the same secret in different slots during a
// rolling rotation count the same secret, and a slot that changes secret
// starts counting anew. An empty secret has none.
func SecretFingerprint(secret string) string {
	if secret == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("hookrelay secret fingerprint\x00" + secret))
	return hex.EncodeToString(sum[:8])
}

// SlotFingerprints returns the fingerprint of each of s's signature slots,
// in slot order: its secrets, then its public keys.
func (s Source) SlotFingerprints() []string {
	out := make([]string, 0, len(s.Secrets)+len(s.PublicKeys))
	for _, sec := range s.Secrets {
		out = append(out, SecretFingerprint(sec))
	}
	for _, key := range s.PublicKeys {
		out = append(out, SecretFingerprint(key))
	}
	return out
}
