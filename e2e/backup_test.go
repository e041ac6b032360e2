package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestBackupAndRestore backs a live relay up while its destination fails
// (SQLite: `hookrelay backup`; PostgreSQL: pg_dump), keeps ingesting, loses
// the database, restores the backup and starts a relay on it: every event
// the backup holds is delivered once its destination answers, and none
// acknowledged after the backup is there.
func TestBackupAndRestore(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			var (
				failing   atomic.Bool
				tried     atomic.Int64
				mu        sync.Mutex
				delivered = map[string]int{} // provider event id → 2xx answers
			)
			failing.Store(true)
			sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				tried.Add(1)
				if failing.Load() {
					http.Error(w, "down", http.StatusInternalServerError)
					return
				}
				mu.Lock()
				delivered[r.Header.Get("Hookrelay-Event-Id")]++
				mu.Unlock()
			}))
			defer sink.Close()
			body := stripeSource + `destinations:
  - {name: billing, url: "` + sink.URL + `/hooks", secret: "whsec_ZTJlLWJhY2t1cC1zaWduaW5n", sources: [stripe], backoff: [1s], max_attempts: 50}
`
			database := driver.URL(t)
			p := startRelay(t, database, body, stripeEnv)
			for i := range 5 {
				postSigned(t, p, fmt.Appendf(nil, `{"id":"evt_backup_%d","type":"invoice.paid","created":1}`, i))
			}
			testkit.Eventually(t, 20*time.Second, "each event tried once, and failed", func() error {
				return testkit.Check(tried.Load() >= 5, "%d tries", tried.Load())
			})

			dir := t.TempDir()
			restore := backUp(t, driver.Name, database, p.configPath, dir)
			for i := range 2 {
				postSigned(t, p, fmt.Appendf(nil, `{"id":"evt_after_backup_%d","type":"invoice.paid","created":1}`, i))
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exited %d", code)
			}

			restored := restore()
			failing.Store(false)
			p = startRelay(t, restored, body, stripeEnv)
			// Once every delivery the restored database holds is done, no
			// duplicate or late event can come. One the backup caught in
			// flight waits for its lease to run out: twice the default
			// 10s timeout and the engine's 30s margin; one leased at ingest
			// whose outcome the backup did not hold has no row until then
			// (its batch's lease row alone). The wait is for the five
			// events' deliveries done, none left.
			st := openStore(t, restored)
			testkit.Eventually(t, 90*time.Second, "every delivery of the restored database done", func() error {
				s, err := st.Stats(context.Background(), time.Now())
				if err != nil {
					return err
				}
				c := s.Destinations["billing"].Counts
				return testkit.Check(c[store.StatusDone] >= 5 && c[store.StatusPending]+c[store.StatusProcessing]+c[store.StatusFailed] == 0, "billing: %v", c)
			})
			mu.Lock()
			defer mu.Unlock()
			for i := range 5 {
				if n := delivered[fmt.Sprintf("evt_backup_%d", i)]; n != 1 {
					t.Errorf("evt_backup_%d delivered %d times after the restore, want 1", i, n)
				}
			}
			for id := range delivered {
				if strings.HasPrefix(id, "evt_after_backup_") {
					t.Errorf("%s, acknowledged after the backup, was delivered from it", id)
				}
			}
		})
	}
}

// backUp backs the live database up the way the docs say for its driver,
// and returns the function that, once the relay is stopped, loses the
// database and restores the backup, returning the database URL to start
// on.
func backUp(t *testing.T, driver, database, config, dir string) func() string {
	t.Helper()
	if driver == "sqlite" {
		copyPath := filepath.Join(dir, "backup.db")
		r := wantRun(t, stripeEnv, 0, "backup", "--config", config, "--to", copyPath)
		contains(t, "backup", r.stdout, "backed up", copyPath)
		wantPrivate(t, copyPath)
		return func() string {
			live := strings.TrimPrefix(database, "sqlite:")
			for _, f := range []string{live, live + "-wal", live + "-shm"} {
				if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
			if err := os.Rename(copyPath, live); err != nil {
				t.Fatal(err)
			}
			return database
		}
	}
	server, schema := splitSchema(t, database)
	dump := filepath.Join(dir, "hookrelay.dump")
	pgTool(t, "pg_dump", "-Fc", "-n", schema, "-f", dump, server)
	return func() string {
		pgTool(t, "psql", "-q", "-c", "DROP SCHEMA "+schema+" CASCADE", server)
		pgTool(t, "pg_restore", "-d", server, dump)
		return database
	}
}

// splitSchema returns the server URL of a test database and the schema
// its search_path selects.
func splitSchema(t *testing.T, database string) (server, schema string) {
	t.Helper()
	u, err := url.Parse(database)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	schema = q.Get("search_path")
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return u.String(), schema
}

// pgTool runs one of PostgreSQL's client programs, bounded in time.
func pgTool(t *testing.T, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
