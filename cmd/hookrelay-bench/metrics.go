package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// commitStats is what the relay's /metrics says about its group commits
// over a whole run, warmup included.
type commitStats struct {
	// Commits counts transactions; Events the events they stored.
	Commits int64 `json:"commits"`
	Events  int64 `json:"events"`
	// MeanCommit is the mean duration of one transaction, fsync included.
	MeanCommit time.Duration `json:"mean_commit_ns"`
	// MeanHandle is the relay's own mean time from a request's start to
	// its answer, over every outcome.
	MeanHandle time.Duration `json:"mean_handle_ns"`
}

// MeanBatch is the mean number of events per transaction: above 1 when
// concurrent requests share transactions.
func (s commitStats) MeanBatch() float64 {
	if s.Commits == 0 {
		return 0
	}
	return float64(s.Events) / float64(s.Commits)
}

// Metric names the relay exposes on its admin listener.
const (
	metricBatch    = "hookrelay_ingest_commit_batch_size"
	metricCommit   = "hookrelay_ingest_commit_duration_seconds"
	metricDuration = "hookrelay_ingest_duration_seconds"
)

// scrapeCommitStats reads the relay's group-commit figures from
// http://<admin>/metrics.
func scrapeCommitStats(ctx context.Context, admin string) (commitStats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/metrics", nil)
	if err != nil {
		return commitStats{}, fmt.Errorf("build metrics request: %w", err)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return commitStats{}, fmt.Errorf("get metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return commitStats{}, fmt.Errorf("get metrics: status %d", resp.StatusCode)
	}
	return parseCommitStats(resp.Body)
}

// parseCommitStats reads the sums and counts of the commit histograms from
// Prometheus text exposition, adding up series that differ by label.
func parseCommitStats(r io.Reader) (commitStats, error) {
	sums := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "{")
		if i := strings.LastIndexByte(line, '}'); i >= 0 {
			rest = line[i+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		sums[name] += v
	}
	if err := sc.Err(); err != nil {
		return commitStats{}, fmt.Errorf("read metrics: %w", err)
	}
	mean := func(metric string) time.Duration {
		if n := sums[metric+"_count"]; n > 0 {
			return time.Duration(sums[metric+"_sum"] / n * float64(time.Second))
		}
		return 0
	}
	return commitStats{
		Commits:    int64(sums[metricBatch+"_count"]),
		Events:     int64(sums[metricBatch+"_sum"]),
		MeanCommit: mean(metricCommit),
		MeanHandle: mean(metricDuration),
	}, nil
}
