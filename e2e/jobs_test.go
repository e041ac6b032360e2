package e2e

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// jobEvents is how many events (each with one done delivery to
// bulkDestination) the job tests seed.
const jobEvents = 3000

// rearmedInDB counts the seeded deliveries a replay re-armed, read from
// the database itself.
func rearmedInDB(t *testing.T, database string) int64 {
	t.Helper()
	const q = `SELECT count(*) FROM hookrelay.deliveries WHERE destination = 'archive' AND replay_count > 0`
	var n int64
	if path, ok := strings.CutPrefix(database, "sqlite:"); ok {
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.QueryRow(qualify(t, database, q)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	conn, err := pgx.Connect(context.Background(), database)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), qualify(t, database, q)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReplayJobProgress: a replay of a few thousand deliveries runs as a
// job whose progress the CLI writes as plain lines when stderr is not a
// terminal (count, rate, time left), then says how many it re-armed.
func TestReplayJobProgress(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			var database string
			p := scaleRelay(t, driver, func(db string) { database = db; seedBulk(t, db, jobEvents) })
			admin := cliEnv(p, scaleAdminToken)
			r := wantRun(t, admin, 0, "replay", "--source", bulkSource, "--destination", bulkDestination, "--max-batch", "5", "--yes")
			contains(t, "replay", r.stdout, "3000 deliveries match: 3000 would be re-armed",
				"re-armed 3000 deliveries (3000 matched, 0 in flight left alone)")
			contains(t, "replay progress", r.stderr, "replay job_", " of 3000 deliveries (", "/s")
			if strings.Contains(r.stderr, "\r") || strings.Contains(r.stderr, "\x1b[") {
				t.Errorf("progress drew a bar on a pipe:\n%q", r.stderr)
			}
			if n := rearmedInDB(t, database); n != jobEvents {
				t.Errorf("%d deliveries re-armed in the database, want %d", n, jobEvents)
			}
			t.Logf("progress:\n%s", r.stderr)
			r = wantRun(t, admin, 0, "jobs")
			contains(t, "jobs", r.stdout, "JOB", "replay", "done", "3000 of 3000", "ops")
			r = wantRun(t, admin, 2, "jobs", "cancel", "job_nope")
			contains(t, "cancel of an unknown job", r.stderr, `no job "job_nope"`)

			// On a terminal the progress is a bar redrawn in place.
			shell, err := exec.LookPath("script")
			if err != nil {
				t.Skip("no script(1) to run the CLI on a terminal")
			}
			cmd := exec.Command(shell, "-qefc", strings.Join([]string{binary, "replay", "--source", bulkSource,
				"--destination", bulkDestination, "--max-batch", "5", "--yes"}, " "), "/dev/null")
			cmd.Env = append(os.Environ(), admin...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("replay on a terminal: %v\n%q", err, out)
			}
			contains(t, "replay on a terminal", string(out), "\r[#", " of 3000 deliveries (", "\x1b[K",
				"re-armed 3000 deliveries (3000 matched, 0 in flight left alone)")
		})
	}
}

// TestReplayJobInterrupted: Ctrl-C during a replay job cancels it on the
// relay; it stops between two batches and the CLI says exactly what was
// re-armed, which is what the database holds re-armed.
func TestReplayJobInterrupted(t *testing.T) {
	t.Parallel()
	progressLine := regexp.MustCompile(`replay job_\w+: (\d+) of 3000 deliveries`)
	report := regexp.MustCompile(`interrupted: re-armed (\d+) of 3000 deliveries \(0 in flight left alone\): those of the selected events up to (\S+), in event id order`)
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			var database string
			p := scaleRelay(t, driver, func(db string) { database = db; seedBulk(t, db, jobEvents) })
			admin := cliEnv(p, scaleAdminToken)
			bg := startBg(t, admin, "replay", "--source", bulkSource, "--destination", bulkDestination, "--max-batch", "1", "--yes")
			testkit.Eventually(t, 60*time.Second, "the replay's progress", func() error {
				return testkit.Check(progressLine.MatchString(bg.stderr.String()), "stderr:\n%s", bg.stderr.String())
			})
			if code := bg.stop(t); code != 1 {
				t.Errorf("interrupted replay exited %d, want 1\n%s", code, bg.stderr.String())
			}
			m := report.FindStringSubmatch(bg.stderr.String())
			if m == nil {
				t.Fatalf("no report of what was re-armed:\n%s", bg.stderr.String())
			}
			said, _ := strconv.ParseInt(m[1], 10, 64)
			if said == 0 || said >= jobEvents {
				t.Errorf("interrupted after %d of %d; want part way", said, jobEvents)
			}
			if n := rearmedInDB(t, database); n != said {
				t.Errorf("the CLI says %d re-armed; the database has %d", said, n)
			}
			// The seeded events are numbered from 0 in id order, one
			// delivery each: the events up to the one named are those
			// re-armed.
			if upTo, err := bulkseed.Number(m[2]); err != nil || int64(upTo)+1 != said {
				t.Errorf("re-armed up to %s, yet %d re-armed", m[2], said)
			}
			r := wantRun(t, admin, 0, "audit", "--json")
			contains(t, "audit after the interrupt", r.stdout, `"rearmed": `+m[1])
			r = wantRun(t, admin, 0, "jobs")
			contains(t, "jobs after the interrupt", r.stdout, "cancelled", m[1]+" of 3000", m[2])
			t.Logf("interrupted after %d of %d re-armed", said, jobEvents)
		})
	}
}
