package reliability

import (
	"bufio"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// The example application logs "handler started" as its handler begins
// and "handler returned" as it ends, both while the handler's transaction
// is open (examples/orders, handlerlog.go). A run killed between the two
// for an event was killed with that event's transaction open: the kill
// hit mid-handler, where exactly once is at stake.

// handlerLine is what the crash test reads of one of those lines.
type handlerLine struct {
	Msg     string `json:"msg"`
	EventID string `json:"event_id"`
}

// handlerRun is what one run of the application logged of its handler:
// the provider event ids whose handler started, in the order of their
// lines, and those whose handler returned.
type handlerRun struct {
	started  []string
	returned map[string]bool
}

// readHandlerRun reads a run's output. A line the kill cut short is not
// JSON and is passed over.
func readHandlerRun(output string) handlerRun {
	r := handlerRun{returned: map[string]bool{}}
	sc := bufio.NewScanner(strings.NewReader(output))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l handlerLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.EventID == "" {
			continue
		}
		switch l.Msg {
		case "handler started":
			r.started = append(r.started, l.EventID)
		case "handler returned":
			r.returned[l.EventID] = true
		}
	}
	return r
}

// cutShort returns the events whose handler started in the run and did
// not return in it.
func (r handlerRun) cutShort() []string {
	var out []string
	for _, id := range r.started {
		if !r.returned[id] && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// killsMidHandler reads the output of the killed runs, oldest first, and
// of the run that followed the last kill, and returns how many kills
// landed while a handler's transaction was open and how many handler
// calls they cut short. It fails the test unless each event cut short was
// handled again by a later run: its transaction never committed.
func killsMidHandler(t *testing.T, killed []string, last string) (kills, calls int) {
	t.Helper()
	runs := make([]handlerRun, 0, len(killed)+1)
	for _, out := range append(slices.Clone(killed), last) {
		runs = append(runs, readHandlerRun(out))
	}
	for i, r := range runs[:len(killed)] {
		short := r.cutShort()
		if len(short) > 0 {
			kills++
		}
		calls += len(short)
		for _, id := range short {
			if !slices.ContainsFunc(runs[i+1:], func(later handlerRun) bool { return slices.Contains(later.started, id) }) {
				t.Errorf("event %s: its handler was cut short by kill %d and never started again", id, i+1)
			}
		}
	}
	return kills, calls
}
