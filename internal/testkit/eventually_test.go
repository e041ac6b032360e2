package testkit_test

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
)

// recordingTB stands in for a test, to see how the helpers fail one.
type recordingTB struct {
	testing.TB
	failed string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	panic(errFatal)
}

var errFatal = errors.New("FailNow")

// run calls f with r, as a test would, and returns what it failed with.
func (r *recordingTB) run(f func(t testing.TB)) (failed string) {
	defer func() {
		if v := recover(); v != nil && v != errFatal {
			panic(v)
		}
		failed = r.failed
	}()
	f(r)
	return r.failed
}

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	start := time.Now()
	testkit.Eventually(t, 5*time.Second, "the third call", func() error {
		n := calls.Add(1)
		return testkit.Check(n >= 3, "call %d", n)
	})
	if calls.Load() != 3 {
		t.Errorf("cond called %d times, want 3", calls.Load())
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %s for three quick calls", took)
	}
}

func TestEventuallyFailsNamingWhatAndLastError(t *testing.T) {
	t.Parallel()
	r := &recordingTB{}
	failed := r.run(func(tb testing.TB) {
		testkit.Eventually(tb, 30*time.Millisecond, "the queue to drain", func() error {
			return errors.New("2 left")
		})
	})
	for _, want := range []string{"30ms", "the queue to drain", "2 left"} {
		if !strings.Contains(failed, want) {
			t.Errorf("failure %q does not contain %q", failed, want)
		}
	}
}

func TestConsistentlyHoldsForTheWholeTime(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	start := time.Now()
	testkit.Consistently(t, 50*time.Millisecond, "nothing", func() error {
		calls.Add(1)
		return nil
	})
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("returned after %s, want at least 50ms", took)
	}
	if calls.Load() < 2 {
		t.Errorf("cond called %d times, want a few", calls.Load())
	}
}

func TestConsistentlyFailsAtTheFirstError(t *testing.T) {
	t.Parallel()
	r := &recordingTB{}
	var calls atomic.Int32
	failed := r.run(func(tb testing.TB) {
		testkit.Consistently(tb, 10*time.Second, "no second alert", func() error {
			n := calls.Add(1)
			return testkit.Check(n < 2, "alert %d", n)
		})
	})
	if calls.Load() != 2 || !strings.Contains(failed, "no second alert") || !strings.Contains(failed, "alert 2") {
		t.Errorf("failed %q after %d calls, want at the second", failed, calls.Load())
	}
}

func TestDefaultParallelKeepsTheCommandLines(t *testing.T) {
	// Not parallel: it reads and sets a flag of the test binary.
	f := flag.Lookup("test.parallel")
	if f == nil {
		t.Skip("no -test.parallel flag")
	}
	before := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(before) })
	set := false
	flag.Visit(func(v *flag.Flag) { set = set || v.Name == "test.parallel" })
	if err := testkit.DefaultParallel(7); err != nil {
		t.Fatal(err)
	}
	want := "7"
	if set {
		want = before
	}
	if got := f.Value.String(); got != want {
		t.Errorf("-test.parallel = %s, want %s", got, want)
	}
}
