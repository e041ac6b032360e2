package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

func TestProgressLines(t *testing.T) {
	eta := 1.5
	j := adminwire.Job{ID: "job_1", Kind: adminwire.JobReplay, State: adminwire.JobRunning, Total: 3000, Done: 1500, RatePerSecond: 1000, ETASeconds: &eta}
	var buf bytes.Buffer
	p := &progress{w: &buf, unit: "deliveries", lastDone: -1}
	start := time.Now()
	p.show(adminwire.Job{State: adminwire.JobCounting}, start) // nothing while counting
	p.show(j, start)
	p.show(j, start.Add(2*time.Second)) // nothing new
	j.Done = 1600
	p.show(j, start.Add(500*time.Millisecond)) // too soon
	p.show(j, start.Add(1500*time.Millisecond))
	want := "replay job_1: 1500 of 3000 deliveries (50%), 1000/s, ETA 2s\n" +
		"replay job_1: 1600 of 3000 deliveries (53%), 1000/s, ETA 2s\n"
	if buf.String() != want {
		t.Errorf("plain lines:\n%q\nwant\n%q", buf.String(), want)
	}

	buf.Reset()
	p = &progress{w: &buf, tty: true, unit: "deliveries"}
	p.show(j, start)
	p.end()
	if got := buf.String(); !strings.HasPrefix(got, "\r[################..............] 1600 of 3000") || !strings.HasSuffix(got, "\x1b[K\n") {
		t.Errorf("bar: %q", got)
	}
}
