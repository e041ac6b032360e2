package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestEventsTail: tail prints the events that arrive after it starts, one
// line each, and leaves out what came before; Ctrl-C ends it with 0.
func TestEventsTail(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), adminConfig, adminEnv)
			postSigned(t, p, []byte(`{"id":"evt_before_tail","type":"invoice.paid","created":1}`))
			tail := startBg(t, cliEnv(p, e2eReadToken), "events", "tail", "--source", "stripe")
			// Tail says it waits once it has taken its start time: what
			// is posted from then on is after it.
			testkit.Eventually(t, 20*time.Second, "tail to start waiting", func() error {
				return testkit.Check(strings.Contains(tail.stderr.String(), "waiting for events"), "stderr: %q", tail.stderr.String())
			})
			for _, id := range []string{"evt_tail_1", "evt_tail_2"} {
				postSigned(t, p, []byte(`{"id":"`+id+`","type":"invoice.paid","created":1}`))
			}
			tail.waitOutput(t, "evt_tail_2", 20*time.Second)
			if code := tail.stop(t); code != 0 {
				t.Errorf("tail exited %d after Ctrl-C", code)
			}
			out := tail.stdout.String()
			if strings.Contains(out, "evt_before_tail") {
				t.Errorf("tail printed an event from before it started:\n%s", out)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 2 || !strings.Contains(lines[0], "evt_tail_1") || !strings.Contains(lines[1], "stripe  invoice.paid  evt_tail_2") {
				t.Errorf("tail printed, want one line per event in order:\n%s", out)
			}
		})
	}
}
