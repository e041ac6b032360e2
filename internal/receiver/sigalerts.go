package receiver

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// SignatureAlert is what a source's rejections over one window add up to
// once they pass the threshold. It carries counts and reasons, never a body,
// a header or an address.
type SignatureAlert struct {
	Kind string `json:"kind"` // always "signature_failures"
	// Summary says in one line what, where and how many: "stripe: 51
	// requests rejected within 5m, above the alert threshold of 50:
	// signature_mismatch 51".
	Summary string `json:"summary"`
	// URL is the console's rejection record of the source; the raiser
	// sets it, and leaves it out without a console URL.
	URL           string           `json:"url,omitempty"`
	Source        string           `json:"source"`
	WindowStart   time.Time        `json:"window_start"`
	WindowSeconds float64          `json:"window_seconds"`
	Rejections    int64            `json:"rejections"`
	Threshold     float64          `json:"threshold"`
	Reasons       map[string]int64 `json:"reasons"`
}

// AlertSummary returns a.Summary, what the slack format of alerts says.
func (a SignatureAlert) AlertSummary() string { return a.Summary }

// AlertLink returns a.URL, the link the slack format of alerts adds.
func (a SignatureAlert) AlertLink() string { return a.URL }

// summary is the alert's Summary: source, count, window, threshold and
// reasons, the most frequent first.
func (a SignatureAlert) summary(window time.Duration) string {
	reasons := slices.SortedFunc(maps.Keys(a.Reasons), func(x, y string) int {
		return cmp.Or(cmp.Compare(a.Reasons[y], a.Reasons[x]), strings.Compare(x, y))
	})
	for i, r := range reasons {
		reasons[i] = fmt.Sprintf("%s %d", r, a.Reasons[r])
	}
	return fmt.Sprintf("%s: %d requests rejected within %s, above the alert threshold of %g: %s",
		a.Source, a.Rejections, windowText(window), a.Threshold, strings.Join(reasons, ", "))
}

// windowText writes a window as a config would: "5m", "1h", "1m30s".
func windowText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// RejectionWatch counts each source's rejected requests in fixed windows and
// raises a SignatureAlert the first time a window's count exceeds the
// threshold: one alert per source per window however long the flood lasts,
// because a missed key rotation and a probe both want one page, not
// thousands.
type RejectionWatch struct {
	threshold float64
	window    time.Duration
	raise     func(SignatureAlert)

	mu      sync.Mutex
	windows map[string]*rejectionWindow // guarded by mu
}

type rejectionWindow struct {
	start   time.Time
	count   int64
	reasons map[string]int64
	raised  bool
}

// NewRejectionWatch returns a watch that calls raise, outside its lock,
// when a source's rejections in one window exceed threshold.
func NewRejectionWatch(threshold float64, window time.Duration, raise func(SignatureAlert)) *RejectionWatch {
	return &RejectionWatch{threshold: threshold, window: window, raise: raise, windows: map[string]*rejectionWindow{}}
}

// rejected counts one rejection of source for reason at.
func (w *RejectionWatch) rejected(source, reason string, at time.Time) {
	if w == nil {
		return
	}
	w.mu.Lock()
	win, ok := w.windows[source]
	if !ok || at.Sub(win.start) >= w.window {
		win = &rejectionWindow{start: at, reasons: map[string]int64{}}
		w.windows[source] = win
	}
	win.count++
	win.reasons[reason]++
	var alert *SignatureAlert
	if !win.raised && float64(win.count) > w.threshold {
		win.raised = true
		reasons := make(map[string]int64, len(win.reasons))
		for k, v := range win.reasons {
			reasons[k] = v
		}
		alert = &SignatureAlert{
			Kind:          "signature_failures",
			Source:        source,
			WindowStart:   win.start.UTC(),
			WindowSeconds: w.window.Seconds(),
			Rejections:    win.count,
			Threshold:     w.threshold,
			Reasons:       reasons,
		}
		alert.Summary = alert.summary(w.window)
	}
	w.mu.Unlock()
	if alert != nil {
		w.raise(*alert)
	}
}
