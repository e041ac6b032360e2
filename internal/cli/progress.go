package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// barWidth is the number of cells of the progress bar.
const barWidth = 30

// plainEvery is how often progress is written as a line of its own when
// the output is not a terminal.
const plainEvery = time.Second

// progress writes a job's progress: on a terminal, a bar redrawn in
// place; elsewhere (a pipe, a log file), a plain line at most every
// plainEvery.
type progress struct {
	w        io.Writer
	tty      bool
	unit     string // what the job counts: "deliveries"
	last     time.Time
	lastDone int64
	drawn    bool // a bar is on the line and must be ended
}

// newProgress returns the progress writer of w.
func newProgress(w io.Writer, unit string) *progress {
	return &progress{w: w, tty: isTerminal(w), unit: unit, lastDone: -1}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// show writes j's progress at now, if there is something new to show.
func (p *progress) show(j adminwire.Job, now time.Time) {
	if j.State == adminwire.JobCounting {
		return
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\x1b[K", p.bar(j))
		p.drawn = true
		return
	}
	if j.Done == p.lastDone || now.Sub(p.last) < plainEvery {
		return
	}
	p.last, p.lastDone = now, j.Done
	fmt.Fprintf(p.w, "%s %s: %s\n", j.Kind, j.ID, p.line(j))
}

// end finishes the bar's line, so that what follows starts on its own.
func (p *progress) end() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// bar is the terminal's progress line: [####......] 1500/3000 50% 1200/s ETA 1s.
func (p *progress) bar(j adminwire.Job) string {
	filled := 0
	if j.Total > 0 {
		filled = int(min(j.Done, j.Total) * barWidth / j.Total)
	}
	return fmt.Sprintf("[%s%s] %s", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), p.line(j))
}

// line is the counts, rate and time left of j.
func (p *progress) line(j adminwire.Job) string {
	s := fmt.Sprintf("%d of %d %s", j.Done, j.Total, p.unit)
	if j.Total > 0 {
		s += fmt.Sprintf(" (%d%%)", min(j.Done, j.Total)*100/j.Total)
	}
	s += fmt.Sprintf(", %.0f/s", j.RatePerSecond)
	if j.ETASeconds != nil {
		s += ", ETA " + time.Duration(*j.ETASeconds*float64(time.Second)).Round(time.Second).String()
	}
	return s
}
