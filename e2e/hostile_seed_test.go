package e2e

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// The scale tests (hostile_scale_test.go) need a relay whose database
// already holds a large history. Going through the receiver would take
// minutes, so the tests migrate the database with the binary
// (`hookrelay migrate`) and fill it with SQL, by the bulkseed command
// built in TestMain: what the relay then serves is what it finds on disk,
// as after months of traffic.

// bulkSource is the source the seeded history belongs to, and
// bulkDestination the destination its deliveries go to.
const (
	bulkSource      = "bulk"
	bulkDestination = "archive"
)

// migrate runs `hookrelay migrate` with the config at path.
func migrate(t *testing.T, path string, env []string) {
	t.Helper()
	if r := run(t, env, "migrate", "--config", path); r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// seedBulk stores n small events of bulkSource received a day ago, a
// microsecond apart, each with one delivery to bulkDestination done (see
// bulkseed).
func seedBulk(t *testing.T, database string, n int) {
	t.Helper()
	seed(t, "-database", database, "-events", strconv.Itoa(n), "-step", "1us",
		"-source", bulkSource, "-type", "invoice.paid", "-destination", bulkDestination, "-done")
}

// seedBigBodies stores n events of bulkSource with bodies of size bytes,
// received over the last minute, with no delivery, and returns the window
// [since, until) that holds them.
func seedBigBodies(t *testing.T, database string, n, size int) (since, until time.Time) {
	t.Helper()
	since = time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	seed(t, "-database", database, "-events", strconv.Itoa(n), "-first", since.Format(time.RFC3339Nano), "-step", "1ms",
		"-source", bulkSource, "-type", "invoice.paid", "-body-bytes", strconv.Itoa(size))
	return since, since.Add(time.Duration(n) * time.Millisecond)
}

// seed runs the bulkseed command with args.
func seed(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	if out, err := exec.CommandContext(ctx, seeder, args...).CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	t.Logf("seeded in %v: %v", time.Since(start).Round(time.Millisecond), args)
}
