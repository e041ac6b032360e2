package reliability

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestJobTakenOverAfterSIGKILL runs two relays on one PostgreSQL
// database. A replay job, in batches of one delivery, is started through
// node A's admin API, and node A is killed with SIGKILL in the middle of
// its walk. Node B takes the job over once A's lease (fleet.runner_lease)
// has run out and finishes it: B's API shows the job done by B, taken
// over from A, with every matched delivery counted; the store has each
// one re-armed exactly once; and the audit log has the takeover.
func TestJobTakenOverAfterSIGKILL(t *testing.T) {
	t.Parallel()
	const (
		events = 300
		pulls  = 6 // pull destinations: no engine claims their deliveries, so each is re-armed, never in flight
	)
	db := testdb.PostgresDatabaseURL(t)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, `sources:
  - {name: stripe, verify: stripe, secrets: ["${REL_STRIPE_SECRET}"]}
tokens:
  - {name: ops, role: admin, secret: %q}
fleet: {runner_lease: %s}
log: {level: warn}
destinations:
`, fleetToken(fleetOpsToken), fleetLease)
	for i := range pulls {
		fmt.Fprintf(&cfg, "  - {name: pull%d, pull: true, secret: \"${REL_SINK_SECRET}\", sources: [stripe]}\n", i)
	}
	var nodes [2]*relayProcess
	for i := range nodes {
		nodes[i] = launch(t, relayproc.RelayOptions{
			Binary: binary, ConfigPath: filepath.Join(t.TempDir(), "hookrelay.yaml"), Database: db,
			Config: cfg.String(), Env: relayEnv, ReadyTimeout: 30 * time.Second,
		})
	}
	a, b := nodes[0], nodes[1]
	for i := range events {
		postStripe(t, nodes[i%2].ingestURL(), fmt.Sprintf("evt_job_%d", i))
	}

	var started adminwire.Job
	if code := adminCall(t, a, fleetOpsToken, http.MethodPost, "/api/v1/jobs/replay",
		map[string]any{"source": "stripe", "max_batch": 1}, &started); code != http.StatusAccepted {
		t.Fatalf("start the replay through node A: %d", code)
	}
	// Killed once the walk has begun.
	var seen adminwire.Job
	testkit.Eventually(t, 30*time.Second, "node A's walk to begin", func() error {
		seen = jobOn(t, a, started.ID)
		return testkit.Check(seen.Done > 0, "%s, %d done", seen.State, seen.Done)
	})
	a.kill(t)
	killed := time.Now()
	if seen.FinishedAt != nil {
		t.Fatalf("the job ended before node A was killed: %+v", seen)
	}

	var j adminwire.Job
	testkit.Eventually(t, 2*fleetLease+60*time.Second, "the job finished through node B", func() error {
		j = jobOn(t, b, started.ID)
		return testkit.Check(j.FinishedAt != nil, "%s on %s, %d of %d", j.State, j.Node, j.Done, j.Total)
	})
	t.Logf("node A killed at %d of %d; node B ended the job %v later", seen.Done, j.Total, time.Since(killed).Round(time.Millisecond))
	const want = events * pulls
	if j.State != adminwire.JobDone || j.Total != want || j.Done != want || j.Replay == nil || j.Replay.Rearmed != want {
		t.Errorf("job = %+v (replay %+v), want done with all %d re-armed", j, j.Replay, want)
	}
	if j.TakenOverFrom != started.Node || j.Node == started.Node || j.Node == "" {
		t.Errorf("job ran on %q, taken over from %q; want it started on node A (%s) and ended by node B", j.Node, j.TakenOverFrom, started.Node)
	}

	var log adminwire.AuditLog
	if code := adminCall(t, b, fleetOpsToken, http.MethodGet, "/api/v1/audit?since=2020-01-01T00:00:00Z", nil, &log); code != http.StatusOK {
		t.Fatalf("audit through node B: %d", code)
	}
	var takeovers, replays int
	for _, e := range log.Entries {
		switch e.Kind {
		case store.AuditTakeover:
			takeovers++
			if e.Detail["job_id"] != j.ID || e.Detail["from_node"] != started.Node || e.Detail["to_node"] != j.Node {
				t.Errorf("takeover row = %+v", e)
			}
		case "replay":
			replays++
			if e.Rearmed != want {
				t.Errorf("replay row = %+v, want the whole job's %d re-armed", e, want)
			}
		}
	}
	if takeovers != 1 || replays != 1 {
		t.Errorf("%d takeover and %d replay rows, want one of each: %+v", takeovers, replays, log.Entries)
	}
	checkRearmedOnce(t, openStore(t, db), want)
}

// jobOn returns the job with id as node shows it.
func jobOn(t *testing.T, node *relayProcess, id string) adminwire.Job {
	t.Helper()
	var j adminwire.Job
	if code := adminCall(t, node, fleetOpsToken, http.MethodGet, "/api/v1/jobs/"+id, nil, &j); code != http.StatusOK {
		t.Fatalf("job %s through %s: %d", id, node.admin, code)
	}
	return j
}

// checkRearmedOnce fails unless st holds want deliveries, each re-armed
// exactly once.
func checkRearmedOnce(t *testing.T, st store.DB, want int) {
	t.Helper()
	ctx := context.Background()
	seen, cursor := 0, ""
	for {
		page, next, err := st.ListEvents(ctx, store.ListRequest{Cursor: cursor, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page {
			ds, err := st.EventDeliveries(ctx, ev.Event.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				seen++
				if d.ReplayCount != 1 {
					t.Errorf("delivery %d (%s to %s) re-armed %d times, want once", d.ID, ev.Event.ID, d.Destination, d.ReplayCount)
				}
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if seen != want {
		t.Errorf("%d deliveries in the store, want %d", seen, want)
	}
}
