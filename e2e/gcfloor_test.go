package e2e

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestServeSetsAHeapFloor checks, through /metrics, that serve raises GOGC
// for its heap floor when the environment sets none, and leaves an
// operator's GOGC as it is.
func TestServeSetsAHeapFloor(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set for the tests, and every relay they start inherits it")
	}
	t.Parallel()
	for _, tc := range []struct {
		name   string
		env    []string
		raised bool
	}{
		{"no GOGC", nil, true},
		{"GOGC=100", []string{"GOGC=100"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, testdb.SQLiteURL(t), "", tc.env)
			got := gogcPercent(t, p)
			if tc.raised && got <= 100 || !tc.raised && got != 100 {
				t.Errorf("go_gc_gogc_percent = %d; raised above 100: want %v", got, tc.raised)
			}
		})
	}
}

var gogcPercentLine = regexp.MustCompile(`(?m)^go_gc_gogc_percent (\d+)$`)

// gogcPercent returns the GOGC the relay's /metrics reports.
func gogcPercent(t *testing.T, p *relayProc) int {
	t.Helper()
	m := gogcPercentLine.FindStringSubmatch(scrapeMetrics(t, p))
	if m == nil {
		t.Fatal("/metrics shows no go_gc_gogc_percent")
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}
