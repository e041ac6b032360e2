package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// metricLeases counts push deliveries leased, by how: at ingest or by a
// claim.
const metricLeases = "hookrelay_delivery_leases_total"

// leaseCounts is how many push deliveries a relay leased at ingest and
// how many its claims found, every destination together.
type leaseCounts struct {
	Ingest, Claim int64
}

// minus returns the leases counted since before.
func (c leaseCounts) minus(before leaseCounts) leaseCounts {
	return leaseCounts{Ingest: c.Ingest - before.Ingest, Claim: c.Claim - before.Claim}
}

// share returns the percentage of the leases taken at ingest, or "-"
// when there were none.
func (c leaseCounts) share() string {
	pct, ok := c.percent()
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", pct)
}

// percent returns the percentage of the leases taken at ingest; ok is
// false when there were none.
func (c leaseCounts) percent() (pct float64, ok bool) {
	if c.Ingest+c.Claim == 0 {
		return 0, false
	}
	return 100 * float64(c.Ingest) / float64(c.Ingest+c.Claim), true
}

// scrapeLeases reads the relay's lease counts from http://<admin>/metrics;
// a relay that exports none (one built before leasing at ingest) has
// zero of each.
func scrapeLeases(ctx context.Context, admin string) (leaseCounts, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/metrics", nil)
	if err != nil {
		return leaseCounts{}, fmt.Errorf("build metrics request: %w", err)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return leaseCounts{}, fmt.Errorf("get metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return leaseCounts{}, fmt.Errorf("get metrics: status %d", resp.StatusCode)
	}
	var c leaseCounts
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, metricLeases+"{") {
			continue
		}
		labels, value, ok := strings.Cut(line[len(metricLeases):], "} ")
		if !ok {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return leaseCounts{}, fmt.Errorf("read %s: %w", line, err)
		}
		switch {
		case strings.Contains(labels, `how="ingest"`):
			c.Ingest += int64(n)
		case strings.Contains(labels, `how="claim"`):
			c.Claim += int64(n)
		}
	}
	return c, sc.Err()
}
