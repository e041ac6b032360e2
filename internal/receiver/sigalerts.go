package receiver

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// SignatureAlert is what a source's rejections over one window, on every
// process of the fleet, add up to once they pass the threshold. It carries
// counts and reasons, never a body, a header or an address.
type SignatureAlert struct {
	Kind string `json:"kind"` // always SignatureAlertRule, "signature_failures"
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

// SignatureAlertRule is the name under which signature-failure alerts
// are marked in the store (store.FleetAlerts.MarkAlert), a source being
// the subject.
const SignatureAlertRule = "signature_failures"

// SignatureRule raises a SignatureAlert when a source's rejections over the
// last Window, counted by every receiver of the fleet (RejectionCounter),
// exceed Threshold: at most once per source per Window however long the
// flood lasts, because a missed key rotation and a probe both want one
// page, not thousands; and once per fleet, whichever process evaluates it
// and however often that changes, because the alert is marked in the
// database before it is raised. The fleet's runner evaluates it.
type SignatureRule struct {
	// Store holds the fleet's rejection counts and alert marks.
	Store store.FleetAlerts
	// Threshold is how many rejections in one Window raise the alert.
	Threshold float64
	// Window is how far back rejections are counted.
	Window time.Duration
	// Raise is called with each alert the rule raises.
	Raise func(SignatureAlert)
	// Logger receives the errors of Run's evaluations; nil discards them.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// RuleInterval is how often Run evaluates the rule.
const RuleInterval = time.Second

// Run evaluates the rule at once and then every RuleInterval until ctx is
// done. An evaluation that fails is logged and made again at the next
// interval.
func (r *SignatureRule) Run(ctx context.Context) {
	logger := r.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("component", "alerts")
	failing := false
	for {
		err := r.Evaluate(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			logger.Error("signature-failure rule not evaluated", "error", err)
		case err == nil && failing:
			logger.Info("signature-failure rule evaluated again")
		}
		failing = err != nil
		t := time.NewTimer(RuleInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Evaluate reads the fleet's rejections of the last Window, raises the
// alert of each source above Threshold that no process raised within the
// Window, in source order, and deletes the counts older than the Window.
func (r *SignatureRule) Evaluate(ctx context.Context) error {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	since := now.Add(-r.Window).UTC().Truncate(CountStep(r.Window))
	counts, err := r.Store.RejectionsSince(ctx, since)
	if err != nil {
		return fmt.Errorf("evaluate signature-failure rule: %w", err)
	}
	for len(counts) > 0 {
		n := 1
		for n < len(counts) && counts[n].Source == counts[0].Source {
			n++
		}
		if err := r.judge(ctx, counts[:n], since, now); err != nil {
			return err
		}
		counts = counts[n:]
	}
	if _, err := r.Store.DropRejectionCounts(ctx, since); err != nil {
		return fmt.Errorf("evaluate signature-failure rule: %w", err)
	}
	return nil
}

// judge raises the alert of one source, whose counts per reason since
// are counts, when they exceed the threshold and the mark lets it.
func (r *SignatureRule) judge(ctx context.Context, counts []store.RejectionCount, since, now time.Time) error {
	a := SignatureAlert{
		Kind:          SignatureAlertRule,
		Source:        counts[0].Source,
		WindowStart:   since,
		WindowSeconds: r.Window.Seconds(),
		Threshold:     r.Threshold,
		Reasons:       make(map[string]int64, len(counts)),
	}
	for _, c := range counts {
		a.Rejections += c.N
		a.Reasons[c.Reason] += c.N
	}
	if float64(a.Rejections) <= r.Threshold {
		return nil
	}
	marked, err := r.Store.MarkAlert(ctx, SignatureAlertRule, a.Source, now, r.Window)
	if err != nil {
		return fmt.Errorf("evaluate signature-failure rule: %w", err)
	}
	if marked {
		a.Summary = a.summary(r.Window)
		r.Raise(a)
	}
	return nil
}
