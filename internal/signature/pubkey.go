package signature

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
)

// standardPublicKeyPrefix marks a Standard Webhooks Ed25519 public key.
const standardPublicKeyPrefix = "whpk_"

// ParsePublicKey decodes a public key the way the scheme reads its
// public_keys: hex Ed25519 for discord, base64 DER (SPKI) ECDSA P-256 for
// sendgrid, whpk_ then base64 Ed25519 for standard. Config validation uses
// it, so a key that validates is one that verifies. The result is an
// ed25519.PublicKey or an *ecdsa.PublicKey.
func ParsePublicKey(scheme, key string) (any, error) {
	switch scheme {
	case "discord":
		b, err := hex.DecodeString(key)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("want %d hex digits (an Ed25519 public key)", 2*ed25519.PublicKeySize)
		}
		return ed25519.PublicKey(b), nil
	case "standard":
		rest, ok := strings.CutPrefix(key, standardPublicKeyPrefix)
		b, err := base64.StdEncoding.DecodeString(rest)
		if !ok || err != nil || len(b) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("want %s then the padded base64 of a %d-byte Ed25519 public key", standardPublicKeyPrefix, ed25519.PublicKeySize)
		}
		return ed25519.PublicKey(b), nil
	case "sendgrid":
		b, err := base64.StdEncoding.DecodeString(key)
		if err != nil {
			return nil, fmt.Errorf("want base64: %w", err)
		}
		pub, err := x509.ParsePKIXPublicKey(b)
		if err != nil {
			return nil, fmt.Errorf("read public key: %w", err)
		}
		ec, ok := pub.(*ecdsa.PublicKey)
		if !ok || ec.Curve != elliptic.P256() {
			return nil, fmt.Errorf("want an ECDSA P-256 public key")
		}
		return ec, nil
	}
	return nil, fmt.Errorf("verify: %s takes no public_keys", scheme)
}

// publicKeys parses the scheme's public keys, numbering their slots from
// first; an empty entry is inactive but keeps its number.
func publicKeys[K any](scheme string, keys []string, first int) (slotted[K], error) {
	ring := slotted[K]{first: first, keys: make([]*K, len(keys))}
	for i, s := range keys {
		if s == "" {
			continue
		}
		pub, err := ParsePublicKey(scheme, s)
		if err != nil {
			return ring, fmt.Errorf("public_keys[%d]: %w", i, err)
		}
		k, ok := pub.(K)
		if !ok {
			return ring, fmt.Errorf("public_keys[%d]: unexpected key type %T", i, pub)
		}
		ring.keys[i] = &k
	}
	return ring, nil
}

// slotted holds public keys in their slots.
type slotted[K any] struct {
	first int  // the slot of keys[0]
	keys  []*K // nil for an inactive slot
}

// active reports whether any slot holds a key.
func (r slotted[K]) active() bool {
	for _, k := range r.keys {
		if k != nil {
			return true
		}
	}
	return false
}

// match returns the slot of the first key for which ok holds.
func (r slotted[K]) match(ok func(K) bool) (int, bool) {
	for i, k := range r.keys {
		if k != nil && ok(*k) {
			return r.first + i, true
		}
	}
	return 0, false
}

// signedBuf pools the buffers in which signed content is laid out for an
// Ed25519 check, which needs it in one piece.
var signedBuf = sync.Pool{New: func() any { return new([]byte) }}

// joined lays out the parts in one pooled buffer and calls f with it; the
// buffer is reused once f returns.
func joined(f func([]byte) bool, parts ...[]byte) bool {
	bp := signedBuf.Get().(*[]byte)
	b := (*bp)[:0]
	for _, p := range parts {
		b = append(b, p...)
	}
	ok := f(b)
	if cap(b) <= 1<<20 {
		*bp = b[:0]
		signedBuf.Put(bp)
	}
	return ok
}
