package adminapi_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// waitJob polls a job until it has ended.
func waitJob(t *testing.T, base, id string) adminwire.Job {
	t.Helper()
	var j adminwire.Job
	testkit.Eventually(t, 30*time.Second, "job "+id+" to end", func() error {
		j = adminwire.Job{}
		wantStatus(t, "job "+id, call(t, base, readToken, "GET", "/api/v1/jobs/"+id, nil, &j), 200)
		return testkit.Check(j.FinishedAt != nil, "still %s: %+v", j.State, j)
	})
	return j
}

// replayedDeliveries counts the deliveries of source's events a replay
// re-armed, from the store.
func replayedDeliveries(t *testing.T, st store.DB, source string) int64 {
	t.Helper()
	var n int64
	for _, c := range replayCounts(t, st, source) {
		if c > 0 {
			n++
		}
	}
	return n
}

// replayCounts returns how many times each delivery of source's events
// was re-armed, by delivery id, from the store.
func replayCounts(t *testing.T, st store.DB, source string) map[int64]int {
	t.Helper()
	counts := map[int64]int{}
	cursor := ""
	for {
		page, next, err := st.ListEvents(context.Background(), store.ListRequest{Filter: store.EventFilter{Source: source}, Cursor: cursor, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page {
			ds, err := st.EventDeliveries(context.Background(), ev.Event.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				counts[d.ID] = d.ReplayCount
			}
		}
		if next == "" {
			return counts
		}
		cursor = next
	}
}

// TestReplayJob: a replay started as a job answers 202 with its id at
// once, walks its selection in batches that GET /api/v1/jobs/{id}
// follows, and ends with the synchronous route's counts.
func TestReplayJob(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		for i := range 6 {
			b.sendStripe(t, fmt.Sprintf("evt_job%d", i), "invoice.paid")
		}
		req := map[string]any{"source": "stripe", "destination": "billing", "max_batch": 2}
		var started adminwire.Job
		wantStatus(t, "start", b.call(t, adminToken, "POST", "/api/v1/jobs/replay", req, &started), 202)
		if started.ID == "" || started.Kind != adminwire.JobReplay || started.Actor != "ops" {
			t.Fatalf("started job = %+v", started)
		}
		j := waitJob(t, b.api.URL, started.ID)
		if j.State != adminwire.JobDone || j.Total != 6 || j.Done != 6 || j.Replay == nil || j.Replay.Rearmed != 6 || j.ETASeconds != nil || j.LastEventID == "" {
			t.Errorf("job = %+v (replay %+v), want done with 6 of 6 re-armed", j, j.Replay)
		}
		if n := replayedDeliveries(t, b.store, "stripe"); n != 6 {
			t.Errorf("%d deliveries re-armed in the store, want 6", n)
		}
		var list adminwire.JobList
		wantStatus(t, "list", b.call(t, readToken, "GET", "/api/v1/jobs", nil, &list), 200)
		if len(list.Jobs) != 1 || list.Jobs[0].ID != started.ID {
			t.Errorf("jobs = %+v, want the one", list.Jobs)
		}
		// The audit log has the replay, not its count.
		var audit struct {
			Entries []struct {
				Kind    string `json:"kind"`
				Rearmed int64  `json:"rearmed"`
				DryRun  bool   `json:"dry_run"`
			} `json:"entries"`
		}
		wantStatus(t, "audit", b.call(t, readToken, "GET", "/api/v1/audit?since=2020-01-01T00:00:00Z", nil, &audit), 200)
		if len(audit.Entries) != 1 || audit.Entries[0].Rearmed != 6 || audit.Entries[0].DryRun {
			t.Errorf("audit = %+v, want the replay of 6 alone", audit.Entries)
		}

		// Mistakes are answered at once, not as a failed job.
		for _, tc := range []struct {
			body any
			want int
		}{
			{map[string]any{}, 400},
			{map[string]any{"source": "strpe"}, 404},
			{map[string]any{"source": "stripe", "dry_run": true}, 400},
			{map[string]any{"source": "stripe", "max_batch": -1}, 400},
			{map[string]any{"source": "stripe", "bogus": 1}, 400},
		} {
			if got := b.call(t, adminToken, "POST", "/api/v1/jobs/replay", tc.body, nil); got != tc.want {
				t.Errorf("start %v: %d, want %d", tc.body, got, tc.want)
			}
		}
		wantStatus(t, "unknown job", b.call(t, readToken, "GET", "/api/v1/jobs/job_nope", nil, nil), 404)
		wantStatus(t, "cancel unknown job", b.call(t, adminToken, "POST", "/api/v1/jobs/job_nope/cancel", nil, nil), 404)
	})
}

// TestReplayJobCancel: a cancelled job stops between two batches; what it
// reports re-armed is what the store holds re-armed.
func TestReplayJobCancel(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		const n = 40
		for i := range n {
			b.sendStripe(t, fmt.Sprintf("evt_cancel%d", i), "invoice.paid")
		}
		var started, cancelled adminwire.Job
		wantStatus(t, "start", b.call(t, adminToken, "POST", "/api/v1/jobs/replay",
			map[string]any{"source": "stripe", "destination": "billing", "max_batch": 1}, &started), 202)
		wantStatus(t, "cancel", b.call(t, adminToken, "POST", "/api/v1/jobs/"+started.ID+"/cancel", nil, &cancelled), 200)
		j := waitJob(t, b.api.URL, started.ID)
		var rearmed int64
		if j.Replay != nil {
			rearmed = j.Replay.Rearmed
		}
		switch j.State {
		case adminwire.JobCancelled:
			if j.Done >= n && j.Total == n {
				t.Errorf("cancelled job = %+v, want it stopped before the end", j)
			}
		case adminwire.JobDone: // it ran out before the cancel reached it
		default:
			t.Fatalf("job = %+v, want cancelled", j)
		}
		if got := replayedDeliveries(t, b.store, "stripe"); got != rearmed {
			t.Errorf("the job says %d re-armed; the store has %d", rearmed, got)
		}
		t.Logf("cancelled after %d of %d", rearmed, j.Total)
		// Cancelling an ended job changes nothing.
		var again adminwire.Job
		wantStatus(t, "cancel again", b.call(t, adminToken, "POST", "/api/v1/jobs/"+started.ID+"/cancel", nil, &again), 200)
		if again.State != j.State || again.Done != j.Done {
			t.Errorf("a second cancel changed the job: %+v, was %+v", again, j)
		}
	})
}

// TestBackfillJob: a backfill started as a job creates what the
// synchronous route would, and a second one finds nothing left.
func TestBackfillJob(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		for i := range 5 {
			b.sendStripe(t, fmt.Sprintf("evt_bj%d", i), "invoice.paid")
		}
		cfg := parseConfig(t, `
  - name: late
    url: http://127.0.0.1:9/late
    secret: "${BILLING_SIGN}"
    sources: [stripe]
`)
		api := b.serve(t, cfg, nil).URL
		window := map[string]any{"destination": "late", "since": "2020-01-01T00:00:00Z", "until": "2099-01-01T00:00:00Z"}
		for i, want := range []int64{5, 0} {
			var started adminwire.Job
			wantStatus(t, "start backfill", call(t, api, adminToken, "POST", "/api/v1/jobs/backfill", window, &started), 202)
			j := waitJob(t, api, started.ID)
			if j.State != adminwire.JobDone || j.Kind != adminwire.JobBackfill || j.Total != want || j.Done != want || j.Backfill == nil || j.Backfill.Created != want {
				t.Errorf("backfill job %d = %+v (%+v), want %d created", i, j, j.Backfill, want)
			}
		}
		for _, tc := range []struct {
			body any
			want int
		}{
			{map[string]any{"destination": "lte", "since": "2020-01-01T00:00:00Z", "until": "2099-01-01T00:00:00Z"}, 404},
			{map[string]any{"destination": "late", "until": "2099-01-01T00:00:00Z"}, 400},
			{map[string]any{"destination": "late", "since": "2020-01-01T00:00:00Z", "until": "2099-01-01T00:00:00Z", "dry_run": true}, 400},
		} {
			if got := call(t, api, adminToken, "POST", "/api/v1/jobs/backfill", tc.body, nil); got != tc.want {
				t.Errorf("start %v: %d, want %d", tc.body, got, tc.want)
			}
		}
	})
}
