package signature

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"sync"
)

// hashByName returns the hash constructor of a configured algorithm name.
func hashByName(name string) (func() hash.Hash, error) {
	switch name {
	case "sha1":
		return sha1.New, nil
	case "sha256", "":
		return sha256.New, nil
	case "sha512":
		return sha512.New, nil
	}
	return nil, fmt.Errorf("unknown hmac algorithm %q (want sha1, sha256 or sha512)", name)
}

// macKey computes HMACs with one secret. It pools keyed HMAC states, so a
// request neither derives the key pads again nor allocates a hash.
type macKey struct {
	pool sync.Pool // of *macState
}

// macState is one keyed HMAC and the buffers a computation needs.
type macState struct {
	key     *macKey
	h       hash.Hash
	scratch []byte // signed content that precedes or follows the body
	sum     [sha512.Size]byte
	n       int // length of the digest in sum
}

func newMACKey(newHash func() hash.Hash, secret []byte) *macKey {
	k := &macKey{}
	secret = bytes.Clone(secret)
	k.pool.New = func() any { return &macState{key: k, h: hmac.New(newHash, secret)} }
	return k
}

// compute returns the HMAC of the content t describes. The caller must
// release the state once done with its digest.
func (k *macKey) compute(t template, c *content) *macState {
	st := k.pool.Get().(*macState)
	st.h.Reset()
	t.write(st, c)
	st.n = len(st.h.Sum(st.sum[:0]))
	return st
}

// digest returns the computed HMAC; it is valid until release.
func (st *macState) digest() []byte { return st.sum[:st.n] }

func (st *macState) release() { st.key.pool.Put(st) }

// keyring holds one macKey per secret slot; an inactive slot is nil.
type keyring []*macKey

// newKeyring prepares the keys of secrets. decode turns a configured secret
// into key bytes; nil takes the secret's own bytes.
func newKeyring(secrets []string, newHash func() hash.Hash, decode func(string) ([]byte, error)) (keyring, error) {
	ring := make(keyring, len(secrets))
	for i, s := range secrets {
		if s == "" {
			continue
		}
		key := []byte(s)
		if decode != nil {
			var err error
			if key, err = decode(s); err != nil {
				return nil, fmt.Errorf("secrets[%d]: %w", i, err)
			}
		}
		ring[i] = newMACKey(newHash, key)
	}
	return ring, nil
}

// active reports whether any slot holds a secret.
func (r keyring) active() bool {
	for _, k := range r {
		if k != nil {
			return true
		}
	}
	return false
}

// match returns the slot of the first secret whose HMAC of the content
// equals one of sigs, each encoded with enc. It computes each secret's HMAC
// once and compares in constant time; a signature that does not decode
// matches nothing.
func (r keyring) match(t template, c *content, enc encoding, sigs []string) (int, bool) {
	slot, _, ok := r.find(t, c, enc, sigs, false)
	return slot, ok
}

// matchMAC is match that also returns the matched HMAC: the decoded bytes
// of the signature, whatever the spelling its encoding accepted.
func (r keyring) matchMAC(t template, c *content, enc encoding, sigs []string) (int, []byte, bool) {
	return r.find(t, c, enc, sigs, true)
}

// find is match; with keep, a match also returns a copy of the HMAC.
func (r keyring) find(t template, c *content, enc encoding, sigs []string, keep bool) (int, []byte, bool) {
	var buf sigBuf
	for slot, k := range r {
		if k == nil {
			continue
		}
		st := k.compute(t, c)
		found := false
		for _, s := range sigs {
			if got, ok := enc.decode(&buf, s); ok && hmac.Equal(got, st.digest()) {
				found = true
				break
			}
		}
		var mac []byte
		if found && keep {
			mac = bytes.Clone(st.digest())
		}
		st.release()
		if found {
			return slot, mac, true
		}
	}
	return 0, nil, false
}

// mac returns the HMAC of the content with the secret in slot, or nil when
// the slot holds none.
func (r keyring) mac(slot int, t template, c *content) []byte {
	if slot < 0 || slot >= len(r) || r[slot] == nil {
		return nil
	}
	st := r[slot].compute(t, c)
	defer st.release()
	return bytes.Clone(st.digest())
}

// sign returns the HMAC of the content with the secret in slot, encoded
// with enc.
func (r keyring) sign(slot int, t template, c *content, enc encoding) (string, error) {
	if slot < 0 || slot >= len(r) || r[slot] == nil {
		return "", fmt.Errorf("secret slot %d: %w", slot, ErrNoSecret)
	}
	st := r[slot].compute(t, c)
	defer st.release()
	return enc.encode(st.digest()), nil
}
