package adminapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
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
		// Public keys take the slots after the secrets'.
		for i, fp := range src.SlotFingerprints() {
			ss.Slots = append(ss.Slots, adminwire.SlotStatus{Slot: i, Secret: fp, Configured: true, Active: fp != ""})
		}
		for _, u := range usage {
			if u.Source == src.Name {
				addUse(slotOf(&ss, u.Secret), u)
			}
		}
		out.Sources = append(out.Sources, ss)
	}
	return out, nil
}

// slotOf returns the status in ss of the secret counted as secret: the
// slot that lists it (or, for counts kept by slot number, that slot), or
// else a status of its own, unconfigured, added after the listed ones.
func slotOf(ss *adminwire.SourceSecrets, secret string) *adminwire.SlotStatus {
	for i := range ss.Slots {
		if sl := &ss.Slots[i]; (sl.Secret != "" && sl.Secret == secret) || (sl.Configured && store.LegacySlot(sl.Slot) == secret) {
			return sl
		}
	}
	st := adminwire.SlotStatus{Slot: -1, Secret: secret}
	if n, ok := strings.CutPrefix(secret, "slot:"); ok {
		st.Secret = ""
		st.Slot, _ = strconv.Atoi(n)
	}
	ss.Slots = append(ss.Slots, st)
	return &ss.Slots[len(ss.Slots)-1]
}

// addUse adds u's counts to st: a slot may have been counted under its
// fingerprint and, before, under its number.
func addUse(st *adminwire.SlotStatus, u store.SlotUsage) {
	if last := u.LastVerified; st.LastVerifiedAt == nil || last.After(*st.LastVerifiedAt) {
		st.LastVerifiedAt = &last
	}
	st.VerifiedLastDay += u.Verified
}
