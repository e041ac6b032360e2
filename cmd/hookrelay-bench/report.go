package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

// Targets the ingest benchmark checks, on a 2-core machine at 32 senders.
var (
	minRatio = map[string]float64{"sqlite": 0.40, "postgres": 0.30}
	maxP99   = 25 * time.Millisecond
)

// ingestRow is one target's figures.
type ingestRow struct {
	Target   string         `json:"target"` // "noop" or "relay"
	Driver   string         `json:"driver"`
	LogLevel string         `json:"log_level,omitempty"`
	Result   loadgen.Result `json:"result"`
	ReqPerS  float64        `json:"req_per_s"`
	// Ratio is ReqPerS over the no-op's; 0 for the no-op itself.
	Ratio float64 `json:"ratio_to_noop,omitempty"`
	// Commits is the relay's own account of its group commits; nil for
	// the no-op.
	Commits *commitStats `json:"commits,omitempty"`
	// Stored is the count of events in the database after the run, -1
	// when not counted.
	Stored int64 `json:"stored"`
	// Misses lists the targets the row missed; Problems what makes the
	// run a failure whatever the targets (lost events, unclean exit).
	Misses   []string `json:"target_misses,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// ingestReport is the ingest command's output.
type ingestReport struct {
	Senders    int           `json:"senders"`
	Body       int           `json:"body_bytes"`
	Duration   time.Duration `json:"duration_ns"`
	LoadBefore string        `json:"load_before"`
	LoadAfter  string        `json:"load_after"`
	Rows       []ingestRow   `json:"rows"`
}

func (r *ingestReport) add(row ingestRow) {
	row.ReqPerS = row.Result.Rate()
	r.Rows = append(r.Rows, row)
}

// judge fills every relay row's ratio, target misses and stored-count
// problems.
func (r *ingestReport) judge() {
	var noop float64
	for _, row := range r.Rows {
		if row.Target == "noop" {
			noop = row.ReqPerS
		}
	}
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.Target != "relay" {
			continue
		}
		if noop > 0 {
			row.Ratio = row.ReqPerS / noop
		}
		if want := minRatio[row.Driver]; row.Ratio < want {
			row.Misses = append(row.Misses, fmt.Sprintf("ratio %.2f < %.2f", row.Ratio, want))
		}
		if p99 := row.Result.Latency.P99; p99 > maxP99 {
			row.Misses = append(row.Misses, fmt.Sprintf("p99 %v > %v", roundDur(p99), maxP99))
		}
		row.Problems = append(row.Problems, checkStored(row.Stored, row.Result.Acked, row.Result.Errors)...)
	}
}

// checkStored compares the events stored with the 200s received. Fewer
// stored than acknowledged is a loss and fails the run. More than the 200s
// plus the requests that got no answer means the relay kept events it
// refused; that loses nothing, so it is only noted.
func checkStored(stored, acked, unknown int64) []string {
	switch {
	case stored < 0:
		return nil
	case stored < acked:
		return []string{fmt.Sprintf("LOST EVENTS: %d acknowledged, %d stored", acked, stored)}
	case stored > acked+unknown:
		return []string{fmt.Sprintf("note: %d stored but only %d acknowledged", stored, acked)}
	}
	return nil
}

// failed reports whether the run is a failure: a problem other than a note,
// or, when targets count, a missed target.
func (r *ingestReport) failed(targetsCount bool) bool {
	for _, row := range r.Rows {
		for _, p := range row.Problems {
			if !strings.HasPrefix(p, "note:") {
				return true
			}
		}
		if targetsCount && len(row.Misses) > 0 {
			return true
		}
	}
	return false
}

func (r *ingestReport) print(w io.Writer, asJSON bool) error {
	if asJSON {
		return writeJSON(w, r)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tdriver\tlog\tsenders\trequests\treq/s\tp50\tp99\tmax\tratio\terrors\tstored\tbatch\tcommit\t")
	for _, row := range r.Rows {
		res := row.Result
		ratio, stored, level := "-", "-", row.LogLevel
		if row.Target != "noop" {
			ratio = fmt.Sprintf("%.2f", row.Ratio)
		}
		if row.Stored >= 0 {
			stored = fmt.Sprintf("%d/%d", row.Stored, res.Acked)
		}
		if level == "" {
			level = "-"
		}
		batch, commit := "-", "-"
		if c := row.Commits; c != nil && c.Commits > 0 {
			batch, commit = fmt.Sprintf("%.1f", c.MeanBatch()), roundDur(c.MeanCommit).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.0f\t%v\t%v\t%v\t%s\t%s\t%s\t%s\t%s\t\n",
			row.Target, row.Driver, level, r.Senders, res.MeasuredAcked, row.ReqPerS,
			roundDur(res.Latency.P50), roundDur(res.Latency.P99), roundDur(res.Latency.Max),
			ratio, errorSummary(res.Statuses, res.Errors), stored, batch, commit)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print table: %w", err)
	}
	fmt.Fprintf(w, "\nbody %d B, %v measured per target; load average %s before, %s after\n",
		r.Body, r.Duration, r.LoadBefore, r.LoadAfter)
	fmt.Fprintln(w, "batch: mean events per group-commit transaction, commit: its mean duration (relay /metrics, whole run)")
	fmt.Fprintf(w, "targets: ratio >= %.2f (sqlite), >= %.2f (postgres); p99 <= %v\n", minRatio["sqlite"], minRatio["postgres"], maxP99)
	for _, row := range r.Rows {
		name := row.Target
		if row.Target == "relay" {
			name = row.Driver + "/" + row.LogLevel
		}
		if row.Target == "relay" && len(row.Misses) == 0 {
			fmt.Fprintf(w, "  %s: meets targets\n", name)
		}
		if len(row.Misses) > 0 {
			fmt.Fprintf(w, "  %s: MISSES %s\n", name, strings.Join(row.Misses, ", "))
		}
		for _, p := range row.Problems {
			fmt.Fprintf(w, "  %s: %s\n", name, p)
		}
		if row.Result.FirstError != "" {
			fmt.Fprintf(w, "  %s: first error: %s\n", name, row.Result.FirstError)
		}
	}
	return nil
}

// errorSummary lists non-200 answers by status and transport errors, e.g.
// "503:12 err:1", or "0".
func errorSummary(statuses map[int]int64, errs int64) string {
	codes := make([]int, 0, len(statuses))
	for c := range statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d:%d", c, statuses[c]))
	}
	if errs > 0 {
		parts = append(parts, fmt.Sprintf("err:%d", errs))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " ")
}

// roundDur rounds d for a table: microseconds under 10ms, else 0.1ms.
func roundDur(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(100 * time.Microsecond)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("print JSON: %w", err)
	}
	return nil
}
