package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The claim memory test's load and bound.
const (
	claimEvents    = 150
	claimClaimers  = 4
	claimAttack    = 6 * time.Second
	claimRSSBound  = 400 << 20
	claimBodyLimit = 16 << 20 // the most body bytes one answer may carry (adminapi)
)

// claimConfig has the Stripe source (1 MiB bodies) and a pull destination
// with its consumer.
const claimConfig = `tokens:
  - {name: dave, role: consumer, secret: "claim-dave-token-77b1", destinations: [bulk]}
` + stripeSource + `destinations:
  - name: bulk
    pull: true
    secret: "whsec_Y2xhaW0tYnVsay1zaWduaW5n"
    sources: [stripe]
`

// TestHostileClaimMemory is an authenticated consumer that claims 1 MiB
// events a hundred at a time from four connections, releases them at once
// and claims again, for six seconds. Each answer must stay within the
// per-answer byte budget and the relay's peak RSS within claimRSSBound,
// where it once grew by gigabytes.
func TestHostileClaimMemory(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			database := driver.URL(t)
			migrate(t, writeConfig(t, database, "127.0.0.1:1", "127.0.0.1:2", claimConfig), stripeEnv)
			seedBigEvents(t, database, claimEvents, "bulk")
			p := startRelay(t, database, claimConfig, stripeEnv)
			t0 := time.Now()
			if _, err := claimBulk(http.DefaultClient, p); err != nil {
				t.Fatal(err)
			}
			t.Logf("first claim %s", time.Since(t0))
			rss0, _, err := relayproc.Memory(p.Pid())
			if err != nil {
				t.Fatal(err)
			}

			var claims, delivered, overBudget atomic.Int64
			var errs sync.Map
			deadline := time.Now().Add(claimAttack)
			var wg sync.WaitGroup
			for range claimClaimers {
				wg.Go(func() {
					client := &http.Client{Timeout: 2 * time.Minute} // a claim of 16 MiB is slow on a loaded machine
					for time.Now().Before(deadline) {
						c, err := claimBulk(client, p)
						if err != nil {
							errs.Store(err.Error(), true)
							return
						}
						claims.Add(1)
						delivered.Add(int64(len(c.deliveries)))
						for _, d := range c.deliveries {
							if err := releaseBulk(client, p, d); err != nil {
								errs.Store(err.Error(), true)
								return
							}
						}
						// base64 makes 4 bytes of 3; headers and tokens
						// take a few kilobytes per delivery.
						if c.size > (claimBodyLimit+1<<20)*4/3+len(c.deliveries)<<12 {
							overBudget.Add(1)
						}
					}
				})
			}
			wg.Wait()
			errs.Range(func(k, _ any) bool { t.Errorf("claimer: %v", k); return true })
			peak := peakRSS(t, p)
			if peak > claimRSSBound {
				t.Errorf("relay peak RSS %d MiB, over the %d MiB bound", peak>>20, claimRSSBound>>20)
			}
			if overBudget.Load() > 0 {
				t.Errorf("%d claim answers carried more than %d MiB of bodies", overBudget.Load(), claimBodyLimit>>20)
			}
			if delivered.Load() == 0 {
				t.Error("no delivery was handed out")
			}
			t.Logf("RELIABILITY claim-memory driver=%s events=%d body_bytes=%d claimers=%d seconds=%s claims=%d deliveries=%d rss_before_mib=%d peak_rss_mib=%d (bound %d)",
				driver.Name, claimEvents, bigBodySize, claimClaimers, claimAttack, claims.Load(), delivered.Load(), rss0>>20, peak>>20, claimRSSBound>>20)
		})
	}
}

// seedBigEvents stores n Stripe events of 1 MiB into a migrated, empty
// database, each with a pending delivery to destination.
func seedBigEvents(t *testing.T, database string, n int, destination string) {
	t.Helper()
	seed(t, "-database", database, "-events", strconv.Itoa(n), "-first", time.Now().Add(-time.Minute).Format(time.RFC3339Nano),
		"-step", "1ms", "-source", "stripe", "-type", "invoice.paid", "-destination", destination, "-body-bytes", strconv.Itoa(bigBodySize))
}

// bulkClaim is what the test reads of one claim answer.
type bulkClaim struct {
	size       int // bytes of the answer
	deliveries []adminwire.ClaimedDelivery
}

// claimBulk claims up to 100 deliveries and reads each one's id and lease
// token with a plain byte search: decoding megabytes of base64 with
// encoding/json would make the test, not the relay, the bottleneck.
func claimBulk(client *http.Client, p *relayProc) (bulkClaim, error) {
	var c bulkClaim
	req, _ := http.NewRequest("POST", "http://"+p.admin+"/api/v1/destinations/bulk/claim?max=100", nil)
	req.Header.Set("Authorization", "Bearer claim-dave-token-77b1")
	status, _, raw, err := hostileDo(client, req)
	if err != nil {
		return c, err
	}
	if status != 200 {
		return c, fmt.Errorf("claim: %d %.200s", status, raw)
	}
	c.size = len(raw)
	idKey, leaseKey := []byte(`{"id":`), []byte(`"lease_token":"`)
	for rest := raw; ; {
		i := bytes.Index(rest, idKey)
		if i < 0 {
			return c, nil
		}
		rest = rest[i+len(idKey):]
		var d adminwire.ClaimedDelivery
		if _, err := fmt.Sscanf(string(rest[:bytes.IndexByte(rest, ',')]), "%d", &d.ID); err != nil {
			return c, fmt.Errorf("claim answer: delivery id: %w", err)
		}
		j := bytes.Index(rest, leaseKey)
		if j < 0 {
			return c, fmt.Errorf("claim answer: delivery %d without a lease token", d.ID)
		}
		rest = rest[j+len(leaseKey):]
		d.LeaseToken = string(rest[:bytes.IndexByte(rest, '"')])
		c.deliveries = append(c.deliveries, d)
	}
}

func releaseBulk(client *http.Client, p *relayProc, d adminwire.ClaimedDelivery) error {
	body := fmt.Sprintf(`{"outcome":"released","lease_token":%q}`, d.LeaseToken)
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://%s/api/v1/deliveries/%d/ack", p.admin, d.ID), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer claim-dave-token-77b1")
	status, _, answer, err := hostileDo(client, req)
	if err == nil && status != 200 {
		err = fmt.Errorf("release: %d %s", status, answer)
	}
	return err
}
