package config

import (
	"fmt"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
)

// Encryption configures the sealing of stored payloads (event bodies and
// headers, attempt response snippets) with AES-256-GCM.
type Encryption struct {
	// Keys seal and open payloads: the first seals every new row, each
	// opens the rows sealed under its id, so a rotation lists the new key
	// first and keeps the old ones until `hookrelay keys rotate` has
	// re-sealed their rows. Empty stores payloads plain.
	Keys []EncryptionKey `yaml:"keys,omitempty"`
}

// EncryptionKey is one key of Encryption.
type EncryptionKey struct {
	// ID names the key; it is stored with every row the key seals, so it
	// never changes once used.
	ID string `yaml:"id"`
	// Key is 32 bytes in base64 (`openssl rand -base64 32`), from ${NAME}
	// or file:PATH like every secret.
	Key string `yaml:"key"`
}

// KeyRing returns the ring of the configured keys, or nil when none is
// configured. A validated configuration's keys always make a ring.
func (c *Config) KeyRing() (*payloadcrypt.Ring, error) {
	if len(c.Encryption.Keys) == 0 {
		return nil, nil
	}
	keys := make([]payloadcrypt.Key, len(c.Encryption.Keys))
	for i, k := range c.Encryption.Keys {
		secret, err := payloadcrypt.DecodeKey(k.Key)
		if err != nil {
			return nil, fmt.Errorf("encryption.keys[%d].key: %w", i, err)
		}
		keys[i] = payloadcrypt.Key{ID: k.ID, Secret: secret}
	}
	r, err := payloadcrypt.NewRing(keys)
	if err != nil {
		return nil, fmt.Errorf("encryption.keys: %w", err)
	}
	return r, nil
}

// encryption checks every key: an id that can be stored, listed once, and
// a key that decodes to 32 bytes. Its messages never hold a key.
func (v *validator) encryption() {
	seen := map[string]bool{}
	for i, k := range v.c.Encryption.Keys {
		key := fmt.Sprintf("encryption.keys[%d]", i)
		if err := payloadcrypt.CheckID(k.ID); err != nil {
			v.add(key+".id", "%v", err)
		} else if seen[k.ID] {
			v.add(key+".id", "key id %q is listed twice", k.ID)
		}
		seen[k.ID] = true
		switch {
		case k.Key == "":
			if h := v.c.origins[key+".key"].hint(); h != "" {
				v.add(key+".key", "empty%s", h)
			} else {
				v.add(key+".key", "required (32 bytes in base64, from ${NAME} or file:PATH)")
			}
		default:
			if _, err := payloadcrypt.DecodeKey(k.Key); err != nil {
				v.add(key+".key", "%v", err)
			}
		}
	}
}
