package adminapi

import (
	"context"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// SlotStatus is one secret slot of a source in GET /api/v1/secrets.
type SlotStatus struct {
	Slot int `json:"slot"`
	// Configured is false for a slot the store saw verify but the config no
	// longer lists; Active is false for a listed slot that is empty.
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

// secrets answers GET /api/v1/secrets.
func (h *handler) secrets(w http.ResponseWriter, r *http.Request) {
	out, err := h.Secrets(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Secrets returns, per configured source and slot, when the slot last
// verified an event and how many it verified in the last 24 hours, so an
// operator can tell when the old secret of a rotation is unused.
func (s *Service) Secrets(ctx context.Context) (Secrets, error) {
	usage, err := s.store.SlotUsage(ctx, s.now().Add(-24*time.Hour))
	if err != nil {
		return Secrets{}, err
	}
	out := Secrets{Sources: []SourceSecrets{}, KeptDays: int(store.SlotUsageKeep / (24 * time.Hour))}
	for _, src := range s.cfg.Sources {
		ss := SourceSecrets{Source: src.Name, Slots: []SlotStatus{}}
		for i, sec := range src.Secrets {
			ss.Slots = append(ss.Slots, SlotStatus{Slot: i, Configured: true, Active: sec != ""})
		}
		// Public keys take the slots after the secrets'.
		for i, key := range src.PublicKeys {
			ss.Slots = append(ss.Slots, SlotStatus{Slot: len(src.Secrets) + i, Configured: true, Active: key != ""})
		}
		for _, u := range usage {
			if u.Source != src.Name {
				continue
			}
			st := slotOf(&ss, u.Slot)
			last := u.LastVerified
			st.LastVerifiedAt, st.VerifiedLastDay = &last, u.Verified
		}
		out.Sources = append(out.Sources, ss)
	}
	return out, nil
}

// slotOf returns the status of slot in ss, adding an unconfigured one in
// slot order when the config does not list it.
func slotOf(ss *SourceSecrets, slot int) *SlotStatus {
	for i := range ss.Slots {
		if ss.Slots[i].Slot == slot {
			return &ss.Slots[i]
		}
	}
	i := len(ss.Slots)
	for i > 0 && ss.Slots[i-1].Slot > slot {
		i--
	}
	ss.Slots = append(ss.Slots, SlotStatus{})
	copy(ss.Slots[i+1:], ss.Slots[i:])
	ss.Slots[i] = SlotStatus{Slot: slot}
	return &ss.Slots[i]
}
