package adminwire

import "time"

// SlotStatus is one secret slot of a source in GET /api/v1/secrets.
type SlotStatus struct {
	// Slot is the secret's position in the source's list (its secrets,
	// then its public keys); -1 for a secret the config no longer lists.
	Slot int `json:"slot"`
	// Secret is the secret's fingerprint, under which its use is counted
	// by every node, whatever slot each lists it in: a digest that reveals
	// nothing of it. Empty for an empty slot, and for counts an earlier
	// version kept by slot number.
	Secret string `json:"secret,omitempty"`
	// Configured is false for a secret the store saw verify but the
	// config no longer lists; Active is false for a listed slot that is
	// empty.
	Configured bool `json:"configured"`
	Active     bool `json:"active"`
	// LastVerifiedAt is nil when the slot verified nothing in the kept
	// history (store.SlotUsageKeep).
	LastVerifiedAt  *time.Time `json:"last_verified_at"`
	VerifiedLastDay int64      `json:"verified_last_day"`
}

// SourceSecrets is one source's slots, in slot order.
type SourceSecrets struct {
	Source string       `json:"source"`
	Slots  []SlotStatus `json:"slots"`
}

// Secrets is the answer of GET /api/v1/secrets: the rotation status of
// every configured source. It never carries a secret.
type Secrets struct {
	Sources []SourceSecrets `json:"sources"`
	// KeptDays is how far back LastVerifiedAt can see.
	KeptDays int `json:"kept_days"`
}
