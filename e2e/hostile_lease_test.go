package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// leaseConfig has one pull destination that gives up after three attempts,
// retried 200ms apart, and a consumer token for it.
const leaseConfig = `tokens:
  - {name: carol, role: consumer, secret: "lease-carol-token-5e1d", destinations: [carol]}
` + stripeSource + `destinations:
  - name: carol
    pull: true
    secret: "whsec_bGVhc2UtY2Fyb2wtc2lnbmluZw=="
    sources: [stripe]
    max_attempts: 3
    backoff: [200ms]
`

// TestHostileForgedLease plays a consumer that rewrites its lease tokens:
// every failed ack claims attempt -1000 and a claim time of 1970, sealed
// the way lease tokens once were, with the destination's signing secret
// that the consumer holds. The relay must follow its own record of the
// delivery: the third failure is the last (dead), and the attempts it
// records carry the real claim times.
func TestHostileForgedLease(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			database := driver.URL(t)
			p := startRelay(t, database, leaseConfig, stripeEnv)
			postSigned(t, p, stripeEvent("evt_lease_forged", ""))

			const token, maxAcks = "lease-carol-token-5e1d", 6
			acks, last := 0, ""
			for acks < maxAcks && last != "dead" {
				status, answer := hostileAdmin(t, p, token, "POST", "/api/v1/destinations/carol/claim?wait=3s", "")
				var c adminwire.Claimed
				if status != 200 || json.Unmarshal(answer, &c) != nil {
					t.Fatalf("claim: %d %s", status, answer)
				}
				if len(c.Deliveries) == 0 {
					break
				}
				d := c.Deliveries[0]
				forged := forgeLease(t, d.LeaseToken, "whsec_bGVhc2UtY2Fyb2wtc2lnbmluZw==")
				body := fmt.Sprintf(`{"outcome":"failed","error":"forged","lease_token":%q}`, forged)
				status, answer = hostileAdmin(t, p, token, "POST", fmt.Sprintf("/api/v1/deliveries/%d/ack", d.ID), body)
				var res adminwire.AckResult
				if status != 200 || json.Unmarshal(answer, &res) != nil {
					t.Fatalf("ack: %d %s", status, answer)
				}
				acks, last = acks+1, res.Status
			}
			if last != "dead" || acks != 3 {
				t.Errorf("after %d forged failed acks the delivery is %q; want dead after 3 (max_attempts)", acks, last)
			}
			st := openStore(t, database)
			e, err := st.EventByProviderID(t.Context(), "stripe", "evt_lease_forged")
			if err != nil {
				t.Fatal(err)
			}
			ds, err := st.EventDeliveries(t.Context(), e.ID)
			if err != nil || len(ds) != 1 {
				t.Fatalf("deliveries: %v %v", ds, err)
			}
			attempts, err := st.DeliveryAttempts(t.Context(), ds[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range attempts {
				if time.Since(a.AttemptedAt) > time.Hour {
					t.Errorf("attempt %d recorded at %s, the forged claim time", a.ID, a.AttemptedAt)
				}
			}
			t.Logf("RELIABILITY forged-lease driver=%s forged_failed_acks=%d final_status=%s attempts=%d recorded=%d",
				driver.Name, acks, last, ds[0].Attempts, len(attempts))
		})
	}
}

// forgeLease rewrites a lease token's attempt number and claim time and
// seals it as tokens were once sealed: HMAC-SHA256 keyed by a fixed prefix
// and the destination's secret.
func forgeLease(t *testing.T, token, secret string) string {
	t.Helper()
	payload, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["a"], m["c"] = -1000, 0
	raw, _ = json.Marshal(m)
	p := base64.RawURLEncoding.EncodeToString(raw)
	mac := hmac.New(sha256.New, []byte("hookrelay lease\x00"+secret))
	mac.Write([]byte(p))
	return p + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}
