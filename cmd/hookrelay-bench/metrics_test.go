package main

import (
	"strings"
	"testing"
	"time"
)

func TestParseCommitStats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		text      string
		want      commitStats
		wantBatch float64
	}{
		{name: "no commits", text: "# HELP x\nup 1\n", want: commitStats{}},
		{
			name: "histograms with and without labels",
			text: `# HELP hookrelay_ingest_commit_batch_size Events per group commit.
# TYPE hookrelay_ingest_commit_batch_size histogram
hookrelay_ingest_commit_batch_size_bucket{le="1"} 2
hookrelay_ingest_commit_batch_size_sum 400
hookrelay_ingest_commit_batch_size_count 50
hookrelay_ingest_commit_duration_seconds_sum 0.2
hookrelay_ingest_commit_duration_seconds_count 50
hookrelay_ingest_duration_seconds_sum{outcome="stored",source="stripe"} 3
hookrelay_ingest_duration_seconds_count{outcome="stored",source="stripe"} 390
hookrelay_ingest_duration_seconds_sum{outcome="duplicate",source="stripe"} 0.2
hookrelay_ingest_duration_seconds_count{outcome="duplicate",source="stripe"} 10
`,
			want:      commitStats{Commits: 50, Events: 400, MeanCommit: 4 * time.Millisecond, MeanHandle: 8 * time.Millisecond},
			wantBatch: 8,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseCommitStats(strings.NewReader(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			// Float sums may be off by a rounding step.
			if got.Commits != tt.want.Commits || got.Events != tt.want.Events ||
				(got.MeanCommit-tt.want.MeanCommit).Abs() > time.Microsecond || (got.MeanHandle-tt.want.MeanHandle).Abs() > time.Microsecond {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			if got.MeanBatch() != tt.wantBatch {
				t.Fatalf("MeanBatch = %v, want %v", got.MeanBatch(), tt.wantBatch)
			}
		})
	}
}
