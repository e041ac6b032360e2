package receiver

import (
	"testing"
	"time"
)

// TestRejectionWatchOnePerWindow raises one alert per source per window,
// the first time the count passes the threshold, and again in a later
// window.
func TestRejectionWatchOnePerWindow(t *testing.T) {
	t.Parallel()
	var got []SignatureAlert
	w := NewRejectionWatch(3, time.Minute, func(a SignatureAlert) { got = append(got, a) })
	t0 := time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
	for i := range 10 {
		reason := "signature_mismatch"
		if i == 0 {
			reason = "signature_missing"
		}
		w.rejected("stripe", reason, t0.Add(time.Duration(i)*time.Second))
	}
	w.rejected("github", "signature_mismatch", t0)
	if len(got) != 1 {
		t.Fatalf("alerts = %+v, want 1", got)
	}
	a := got[0]
	if a.Source != "stripe" || a.Rejections != 4 || a.Reasons["signature_missing"] != 1 || a.Reasons["signature_mismatch"] != 3 ||
		!a.WindowStart.Equal(t0) || a.WindowSeconds != 60 || a.Threshold != 3 {
		t.Errorf("alert = %+v", a)
	}
	if want := "stripe: 4 requests rejected within 1m, above the alert threshold of 3: signature_mismatch 3, signature_missing 1"; a.Summary != want {
		t.Errorf("summary = %q, want %q", a.Summary, want)
	}
	if a.Kind != "signature_failures" || a.URL != "" {
		t.Errorf("kind %q, url %q: want signature_failures and no link (the raiser adds it)", a.Kind, a.URL)
	}
	for i := range 4 {
		w.rejected("stripe", "signature_mismatch", t0.Add(time.Minute+time.Duration(i)*time.Second))
	}
	if len(got) != 2 || !got[1].WindowStart.Equal(t0.Add(time.Minute)) || got[1].Rejections != 4 {
		t.Errorf("second window alerts = %+v, want a second alert", got)
	}
}
