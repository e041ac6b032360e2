package adminapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestVerify(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		now := time.Now().UTC()
		late := b.send(t, webhook{source: "stripe", id: "evt_late", typ: "invoice.paid", signedAt: now.Add(-30 * time.Second)})
		b.receiveAt(now.Add(-40 * 24 * time.Hour))
		old := b.sendStripe(t, "evt_old", "invoice.paid")
		b.receiveAt(time.Time{})
		gh := b.send(t, webhook{source: "github", id: "gh-verify", typ: "push"})
		gl := b.send(t, webhook{source: "gitlab", id: "gl-verify", typ: "Push Hook"})

		verify := func(base, id string) adminwire.Verification {
			t.Helper()
			var v adminwire.Verification
			wantStatus(t, "verify "+id, call(t, base, readToken, "POST", "/api/v1/events/"+id+"/verify", nil, &v), 200)
			return v
		}
		v := verify(b.api.URL, late)
		if !v.Valid || v.Slot == nil || *v.Slot != 0 || v.SkewSeconds == nil || *v.SkewSeconds < 30 || *v.SkewSeconds > 31 ||
			v.Scheme != "stripe" || v.SignedAt == nil || !v.WithinTolerance || v.ToleranceSeconds != 300 {
			t.Errorf("verify of an event signed 30s before receipt = %+v", v)
		}
		// Forty days later the event still verifies: tolerance is
		// reported, not applied.
		if v := verify(b.api.URL, old); !v.Valid || v.SkewSeconds == nil || *v.SkewSeconds > 1 {
			t.Errorf("verify of a 40-day-old event = %+v", v)
		}
		if v := verify(b.api.URL, gh); !v.Valid || v.Slot == nil || *v.Slot != 0 || v.SkewSeconds != nil || v.SignedAt != nil {
			t.Errorf("verify of a GitHub event = %+v", v)
		}
		if v := verify(b.api.URL, gl); v.Valid || v.Slot != nil || !strings.Contains(v.Reason, "never stores") {
			t.Errorf("verify of a GitLab event = %+v", v)
		}

		// The secrets configured now decide: after a rotation the old
		// secret is slot 1; once it is dropped the event does not verify.
		rotated := parseConfig(t, "")
		src, _ := rotated.Source("stripe")
		src.Secrets = []string{"whsec_the_new_one", testEnv["STRIPE"]}
		if v := verify(b.serve(t, rotated, nil).URL, late); !v.Valid || v.Slot == nil || *v.Slot != 1 {
			t.Errorf("verify after rotation = %+v, want valid in slot 1", v)
		}
		src.Secrets = []string{"whsec_the_new_one"}
		if v := verify(b.serve(t, rotated, nil).URL, late); v.Valid || v.Slot != nil || !strings.Contains(v.Reason, "none of the secrets") ||
			v.SkewSeconds == nil {
			t.Errorf("verify after the secret was dropped = %+v", v)
		}
		var e adminwire.Error
		wantStatus(t, "verify unknown", b.call(t, readToken, "POST", "/api/v1/events/01NOSUCHEVENT/verify", nil, &e), 404)
	})
}
