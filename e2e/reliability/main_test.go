// Package reliability puts the built hookrelay binary through crashes and
// outages — SIGKILL under load, a database that goes away, a destination
// that refuses connections, a full disk — and checks the promise after
// each: every event answered 200 is stored exactly once and reaches its
// destination at least once. Each test logs its figures in one line that
// starts with RELIABILITY; RELIABILITY.md at the repository root holds the
// last run's.
package reliability

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// binary is the hookrelay binary built once for the package's tests.
var binary string

// parallel is how many tests run at once unless -test.parallel says
// otherwise: the crash tests mostly wait on the relay they kill and the
// simulator's pace (a fifth of a core each), so all four of them run side
// by side rather than two by two.
const parallel = 4

func TestMain(m *testing.M) {
	if err := testkit.DefaultParallel(parallel); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "hookrelay-reliability-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if binary, err = relayproc.Build(context.Background(), dir, "../../cmd/hookrelay"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// openStore opens the relay's database directly, to check what it holds.
func openStore(t *testing.T, database string) store.DB {
	t.Helper()
	st, err := storeopen.Open(context.Background(), database, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}
