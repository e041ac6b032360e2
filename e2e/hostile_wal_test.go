package e2e

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestHostileWALShrinksWhenIdle posts a burst of signed events to a relay
// on SQLite, then stops: within seconds the WAL file is emptied, rather than
// left at its high-water mark beside the database until a restart.
func TestHostileWALShrinksWhenIdle(t *testing.T) {
	t.Parallel()
	db := testdb.SQLiteURL(t)
	p := startRelay(t, db, stripeSource, stripeEnv)
	wal := strings.TrimPrefix(db, "sqlite:") + "-wal"
	pad := `"pad":"` + strings.Repeat("x", 8<<10) + `"`
	var wg sync.WaitGroup
	for s := range 8 {
		wg.Go(func() {
			for i := range 50 {
				req := hostileStripe(t, p, stripeEvent(fmt.Sprintf("evt_wal_%d_%d", s, i), pad), nil)
				if status, _, answer, err := hostileDo(http.DefaultClient, req); err != nil || status != 200 {
					t.Errorf("post: %d %s %v", status, answer, err)
					return
				}
			}
		})
	}
	wg.Wait()
	peak := fileBytes(t, wal)
	if peak == 0 {
		t.Fatal("the WAL is empty right after the burst; the test proves nothing")
	}
	stopped := time.Now()
	testkit.Eventually(t, 10*time.Second, "the WAL emptied after the burst", func() error {
		n := fileBytes(t, wal)
		return testkit.Check(n == 0, "still %d bytes", n)
	})
	t.Logf("RELIABILITY wal-idle driver=sqlite events=400 wal_after_burst=%d emptied_after=%s", peak, time.Since(stopped).Round(time.Millisecond))
}

// fileBytes returns the size of the file at path, 0 when it is missing.
func fileBytes(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
