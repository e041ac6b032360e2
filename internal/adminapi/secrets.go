package adminapi

import (
	"context"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

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
func (s *Service) Secrets(ctx context.Context) (adminwire.Secrets, error) {
	usage, err := s.store.SlotUsage(ctx, s.now().Add(-24*time.Hour))
	if err != nil {
		return adminwire.Secrets{}, err
	}
	out := adminwire.Secrets{Sources: []adminwire.SourceSecrets{}, KeptDays: int(store.SlotUsageKeep / (24 * time.Hour))}
	for _, src := range s.cfg.Sources {
		ss := adminwire.SourceSecrets{Source: src.Name, Slots: []adminwire.SlotStatus{}}
		for i, sec := range src.Secrets {
			ss.Slots = append(ss.Slots, adminwire.SlotStatus{Slot: i, Configured: true, Active: sec != ""})
		}
		// Public keys take the slots after the secrets'.
		for i, key := range src.PublicKeys {
			ss.Slots = append(ss.Slots, adminwire.SlotStatus{Slot: len(src.Secrets) + i, Configured: true, Active: key != ""})
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
func slotOf(ss *adminwire.SourceSecrets, slot int) *adminwire.SlotStatus {
	for i := range ss.Slots {
		if ss.Slots[i].Slot == slot {
			return &ss.Slots[i]
		}
	}
	i := len(ss.Slots)
	for i > 0 && ss.Slots[i-1].Slot > slot {
		i--
	}
	ss.Slots = append(ss.Slots, adminwire.SlotStatus{})
	copy(ss.Slots[i+1:], ss.Slots[i:])
	ss.Slots[i] = adminwire.SlotStatus{Slot: slot}
	return &ss.Slots[i]
}
