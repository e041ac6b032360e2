package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestScrapeLeases checks that the lease counts of every destination are
// added up by how, and that a relay without them counts none.
func TestScrapeLeases(t *testing.T) {
	t.Parallel()
	body := `# HELP hookrelay_delivery_leases_total Deliveries ...
# TYPE hookrelay_delivery_leases_total counter
hookrelay_delivery_leases_total{destination="noop",how="claim"} 3
hookrelay_delivery_leases_total{destination="noop",how="ingest"} 12
hookrelay_delivery_leases_total{destination="noop2",how="claim"} 1
hookrelay_delivery_leases_total{destination="noop2",how="ingest"} 4
hookrelay_deliveries_total{destination="noop",outcome="done"} 99
`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
	defer srv.Close()
	admin := strings.TrimPrefix(srv.URL, "http://")
	c, err := scrapeLeases(t.Context(), admin)
	if err != nil || c != (leaseCounts{Ingest: 16, Claim: 4}) {
		t.Fatalf("scrapeLeases = %+v, %v; want 16 at ingest, 4 claimed", c, err)
	}
	if s := c.share(); s != "80%" {
		t.Errorf("share = %s, want 80%%", s)
	}
	if d := c.minus(leaseCounts{Ingest: 6, Claim: 4}); d != (leaseCounts{Ingest: 10}) || d.share() != "100%" {
		t.Errorf("minus = %+v (%s), want 10 at ingest, 100%%", d, d.share())
	}
	if s := (leaseCounts{}).share(); s != "-" {
		t.Errorf("share of none = %s, want -", s)
	}
}
