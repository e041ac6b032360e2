// Package payloadcrypt seals the payloads hookrelay stores (event bodies,
// headers, response snippets) with AES-256-GCM, and opens them again. A
// Ring holds the configured keys: the first seals, any of them opens a row
// sealed under its id, so that keys can be rotated.
//
// A sealed value is a random 12-byte nonce followed by the ciphertext and
// its 16-byte tag. The caller passes associated data that names the row
// and column a value belongs to, so that a value copied to another row or
// column fails to open instead of reading as another row's payload.
package payloadcrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// Overhead is how many bytes sealing adds to a value: the nonce and the tag.
const Overhead = nonceSize + tagSize

const (
	nonceSize = 12
	tagSize   = 16
)

// Errors returned by Open.
var (
	// ErrUnknownKey reports a value sealed under a key id the ring does not
	// hold (or, with no ring, any sealed value).
	ErrUnknownKey = errors.New("payloadcrypt: no configured key has the row's key id")
	// ErrAuth reports a value that the key of its id does not open: the key
	// is not the one it was sealed with, or the value was altered.
	ErrAuth = errors.New("payloadcrypt: value does not open with the key of its id (wrong key or altered data)")
)

// Key is one configured key.
type Key struct {
	// ID names the key; it is stored with every row sealed under it.
	ID string
	// Secret is KeySize bytes.
	Secret []byte
}

// Ring is a set of keys. A nil *Ring seals nothing: Seal returns the value
// as it is with an empty key id. A Ring is safe for concurrent use.
type Ring struct {
	ids   []string               // in configured order; ids[0] seals
	aeads map[string]cipher.AEAD // by id
}

// NewRing returns the ring of keys, the first of which seals. It fails on
// an empty list, an empty or repeated id, or a secret that is not KeySize
// bytes.
func NewRing(keys []Key) (*Ring, error) {
	if len(keys) == 0 {
		return nil, errors.New("new key ring: no keys")
	}
	r := &Ring{aeads: make(map[string]cipher.AEAD, len(keys))}
	for i, k := range keys {
		if err := CheckID(k.ID); err != nil {
			return nil, fmt.Errorf("new key ring: key %d: %w", i, err)
		}
		if _, dup := r.aeads[k.ID]; dup {
			return nil, fmt.Errorf("new key ring: key id %q is listed twice", k.ID)
		}
		if len(k.Secret) != KeySize {
			return nil, fmt.Errorf("new key ring: key %q is %d bytes, want %d", k.ID, len(k.Secret), KeySize)
		}
		block, err := aes.NewCipher(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("new key ring: key %q: %w", k.ID, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("new key ring: key %q: %w", k.ID, err)
		}
		r.ids = append(r.ids, k.ID)
		r.aeads[k.ID] = aead
	}
	return r, nil
}

// CheckID reports whether id can name a key: 1 to 64 characters of
// letters, digits, '-', '_' and '.'.
func CheckID(id string) error {
	if id == "" || len(id) > 64 {
		return errors.New("key id must be 1 to 64 characters")
	}
	if i := strings.IndexFunc(id, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')
	}); i >= 0 {
		return fmt.Errorf("key id %q may hold only letters, digits, '-', '_' and '.'", id)
	}
	return nil
}

// DecodeKey decodes a key written in base64 (standard or URL alphabet,
// padded or not), as `openssl rand -base64 32` prints one, and checks that
// it is KeySize bytes. Its errors never contain the key.
func DecodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			if len(b) != KeySize {
				return nil, fmt.Errorf("key is %d bytes, want %d (make one with: openssl rand -base64 32)", len(b), KeySize)
			}
			return b, nil
		}
	}
	return nil, errors.New("key is not base64 (make one with: openssl rand -base64 32)")
}

// Current returns the id of the key that seals, or "" for a nil ring.
func (r *Ring) Current() string {
	if r == nil {
		return ""
	}
	return r.ids[0]
}

// IDs returns the ids of the ring's keys in configured order.
func (r *Ring) IDs() []string {
	if r == nil {
		return nil
	}
	return append([]string(nil), r.ids...)
}

// Has tells whether the ring holds a key with the given id.
func (r *Ring) Has(id string) bool {
	if r == nil {
		return false
	}
	_, ok := r.aeads[id]
	return ok
}

// Seal seals value under the current key with associated data ad and
// returns it with the key's id. On a nil ring it returns value and "".
func (r *Ring) Seal(ad, value []byte) (sealed []byte, keyID string, err error) {
	if r == nil {
		return value, "", nil
	}
	id := r.ids[0]
	aead := r.aeads[id]
	out := make([]byte, nonceSize, nonceSize+len(value)+tagSize)
	if _, err := rand.Read(out); err != nil {
		return nil, "", fmt.Errorf("seal: make nonce: %w", err)
	}
	return aead.Seal(out, out, value, ad), id, nil
}

// Open opens a value Seal returned under keyID with the same associated
// data. An empty keyID means the value was stored unsealed: it is returned
// as it is. It fails with ErrUnknownKey when the ring has no key of that
// id and with ErrAuth when the key does not open the value; it never
// returns bytes it could not authenticate.
func (r *Ring) Open(keyID string, ad, sealed []byte) ([]byte, error) {
	if keyID == "" {
		return sealed, nil
	}
	if !r.Has(keyID) {
		return nil, fmt.Errorf("%w (key id %q; configured: %s)", ErrUnknownKey, keyID, r.describe())
	}
	if len(sealed) < Overhead {
		return nil, fmt.Errorf("%w (key id %q: value too short)", ErrAuth, keyID)
	}
	out, err := r.aeads[keyID].Open(nil, sealed[:nonceSize], sealed[nonceSize:], ad)
	if err != nil {
		return nil, fmt.Errorf("%w (key id %q)", ErrAuth, keyID)
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// describe lists the ring's key ids for an error message.
func (r *Ring) describe() string {
	if r == nil {
		return "none"
	}
	return strings.Join(r.ids, ", ")
}
