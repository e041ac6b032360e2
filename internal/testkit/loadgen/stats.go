package loadgen

import (
	"slices"
	"time"
)

// Summary describes a set of latencies.
type Summary struct {
	Count int           `json:"count"`
	Min   time.Duration `json:"min_ns"`
	Mean  time.Duration `json:"mean_ns"`
	P50   time.Duration `json:"p50_ns"`
	P90   time.Duration `json:"p90_ns"`
	P99   time.Duration `json:"p99_ns"`
	Max   time.Duration `json:"max_ns"`
}

// Summarize sorts d in place and describes it. An empty d gives the zero
// Summary.
func Summarize(d []time.Duration) Summary {
	if len(d) == 0 {
		return Summary{}
	}
	slices.Sort(d)
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	return Summary{
		Count: len(d),
		Min:   d[0],
		Mean:  sum / time.Duration(len(d)),
		P50:   Percentile(d, 50),
		P90:   Percentile(d, 90),
		P99:   Percentile(d, 99),
		Max:   d[len(d)-1],
	}
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted, which must be in ascending order; 0 when sorted is empty.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	// The nearest rank is ceil(p/100 * n), counted from 1.
	rank := int(p / 100 * float64(n))
	if float64(rank) < p/100*float64(n) {
		rank++
	}
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}
