//go:build linux

package reliability

import (
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, for the integrity check

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/providersim"
)

// TestDiskFull keeps the SQLite database on a small tmpfs and fills it
// under load until writes fail. While it is full the relay must answer 503,
// never 200, for what it cannot store; once a filler file is deleted it
// must recover by itself; the database must pass PRAGMA
// integrity_check; and the promise must hold.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	const full = 3 * time.Second
	dir := mountTmpfs(t, "8m")
	path := filepath.Join(dir, "hookrelay.db")
	db := "sqlite:" + path

	dest := newSink(t, 0)
	p := startRelay(t, db, dest.URL(), "[100ms, 500ms]")
	sim := startSimulator(t, p.ingestURL(), providersim.Options{
		Concurrency: 16, Rate: 50, MaxAttempts: 1000, Deadline: 2 * time.Minute,
	})
	probes := startReadyzProbe(p.admin, 100*time.Millisecond)
	defer probes.stop()
	loadFor(t, sim, 50) // events stored before the disk fills

	filler := filepath.Join(dir, "filler")
	filled, err := fillDisk(filler)
	if err != nil {
		t.Fatal(err)
	}
	fullAt := time.Now()
	// The relay notices at its next write that needs a new page.
	var failedAt time.Time
	testkit.Eventually(t, 10*time.Second, fmt.Sprintf("a 503 once the disk filled up (%d bytes of filler)", filled), func() error {
		for _, r := range sim.Report().Within(fullAt, time.Now()) {
			if r.Status == http.StatusServiceUnavailable {
				failedAt = r.Answered
				return nil
			}
		}
		return errors.New("none")
	})
	time.Sleep(full) // the disk stays full this long under load: what is tested
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freedAt := time.Now()
	var ackedAt time.Time
	testkit.Eventually(t, 30*time.Second, "an event acknowledged once the space came back", func() error {
		for _, e := range sim.Report().Events {
			if e.Acked && e.AckedAt.After(freedAt) {
				ackedAt = e.AckedAt
				return nil
			}
		}
		return errors.New("none")
	})
	loadFor(t, sim, 50) // and more after it
	probes.stop()
	rep := finishSimulator(t, sim, time.Minute)

	// Once full, a write may still fit in pages the files already hold (a
	// batch that failed half-way leaves its pages allocated): a 200 then
	// is a stored event, which checkPromise checks like any other. What
	// must not happen is a 200 for an event that was not stored.
	whileFull := rep.Within(failedAt, freedAt)
	during := providersim.CountStatuses(whileFull)
	for _, r := range whileFull {
		if r.Status == http.StatusOK {
			t.Logf("event %s answered 200 %v into the full disk; checked stored below",
				r.EventID, r.Sent.Sub(failedAt).Round(time.Millisecond))
		}
	}
	if during[http.StatusServiceUnavailable] == 0 {
		t.Errorf("answers while the disk was full: %v, want 503s", during)
	}

	st := openStore(t, db)
	l := checkPromise(t, st, rep, dest, 60*time.Second)
	p.stop(t)
	integrity := integrityCheck(t, path)
	if integrity != "ok" {
		t.Errorf("PRAGMA integrity_check after the disk filled up: %s", integrity)
	}
	readyWhileFull := probes.within(failedAt, freedAt)
	if readyWhileFull[http.StatusServiceUnavailable] == 0 {
		t.Errorf("/readyz while the disk was full: %v, want 503 (the relay must leave the load balancer's rotation)", readyWhileFull)
	}
	logFigures(t, "disk-full", l.Figures,
		fmt.Sprintf("full_for=%.1fs", freedAt.Sub(fullAt).Seconds()),
		fmt.Sprintf("first_503_after=%.2fs", failedAt.Sub(fullAt).Seconds()),
		"answers_while_full="+statusList(during),
		"readyz_while_full="+statusList(readyWhileFull),
		fmt.Sprintf("acked_again_after=%.2fs", ackedAt.Sub(freedAt).Seconds()),
		"integrity_check="+integrity)
}

// integrityCheck runs PRAGMA integrity_check on the SQLite file at path
// and returns its verdict, "ok" when the database is sound.
func integrityCheck(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var verdict string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&verdict); err != nil {
		t.Fatalf("integrity check: %v", err)
	}
	return verdict
}
