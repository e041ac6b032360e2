package adminapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestSecretsCountedBySecret is a rolling rotation on two nodes: one
// lists the old secret alone, the other the new one first and the old one
// second. Each secret's use is counted under its fingerprint, so both
// nodes' rotation status shows the old secret's use at the slot each
// lists it in, and the new one unused; counts an earlier version kept by
// slot number still count for that slot; a secret no longer listed shows
// as removed.
func TestSecretsCountedBySecret(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		const oldSecret, newSecret, retired = "whsec_old_secret_of_rotation", "whsec_new_secret_of_rotation", "whsec_retired_long_ago"
		withSecrets := func(secrets ...string) *config.Config {
			cfg := parseConfig(t, "")
			for i := range cfg.Sources {
				if cfg.Sources[i].Name == "stripe" {
					cfg.Sources[i].Secrets = secrets
				}
			}
			return cfg
		}
		before, during := withSecrets(oldSecret), withSecrets(newSecret, oldSecret)
		b := setup(t, driver, before)
		now := time.Now().UTC()
		counts := []store.SlotCount{
			{Source: "stripe", Secret: config.SecretFingerprint(oldSecret), Verified: 5, Last: now.Add(-time.Minute)},
			{Source: "stripe", Secret: config.SecretFingerprint(retired), Verified: 2, Last: now.Add(-2 * time.Hour)},
			{Source: "stripe", Secret: store.LegacySlot(0), Verified: 1, Last: now.Add(-3 * time.Hour)},
		}
		if err := b.store.CountSlots(context.Background(), counts, now); err != nil {
			t.Fatal(err)
		}
		stripeSlots := func(srv string) []adminwire.SlotStatus {
			var out adminwire.Secrets
			wantStatus(t, "secrets", call(t, srv, readToken, http.MethodGet, "/api/v1/secrets", nil, &out), http.StatusOK)
			for _, s := range out.Sources {
				if s.Source == "stripe" {
					return s.Slots
				}
			}
			t.Fatal("no stripe source")
			return nil
		}

		// The node that lists the old secret alone: slot 0 has its use,
		// and the count kept for slot 0 by number.
		got := stripeSlots(b.api.URL)
		if len(got) != 2 || got[0].Slot != 0 || got[0].VerifiedLastDay != 6 || got[0].Secret != config.SecretFingerprint(oldSecret) {
			t.Fatalf("slots before the rotation = %+v, want slot 0 with 6 uses, then the retired secret", got)
		}
		if r := got[1]; r.Slot != -1 || r.Configured || r.Secret != config.SecretFingerprint(retired) || r.VerifiedLastDay != 2 {
			t.Errorf("the retired secret = %+v, want slot -1, removed, with its 2 uses", r)
		}

		// The node that lists the new secret first: the old secret's use
		// is at its slot 1 there; the new one, unused, at slot 0.
		got = stripeSlots(b.serve(t, during, nil).URL)
		if len(got) < 2 || got[0].VerifiedLastDay != 1 || got[0].Secret != config.SecretFingerprint(newSecret) ||
			got[1].Slot != 1 || got[1].VerifiedLastDay != 5 {
			t.Errorf("slots during the rotation = %+v, want slot 0 (new) with the 1 use kept by number, slot 1 (old) with 5", got)
		}
		for _, sl := range got {
			if sl.Secret == oldSecret || sl.Secret == newSecret {
				t.Fatalf("a secret in the answer: %+v", sl)
			}
		}
	})
}
