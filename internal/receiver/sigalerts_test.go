package receiver_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestCountStep(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ window, want time.Duration }{
		{30 * time.Second, time.Second},
		{time.Minute, time.Second},
		{5 * time.Minute, 3 * time.Second},
		{10 * time.Minute, 6 * time.Second},
		{time.Hour, 36 * time.Second},
		{7 * time.Minute, 4 * time.Second}, // 4.2 s, in whole seconds
	} {
		if got := receiver.CountStep(tc.window); got != tc.want {
			t.Errorf("CountStep(%v) = %v, want %v", tc.window, got, tc.want)
		}
	}
}

// migratedStore opens and migrates database, closed when the test ends.
func migratedStore(t *testing.T, database string) store.DB {
	t.Helper()
	return storetest.Migrated(t, func(ctx context.Context) (store.DB, error) {
		return storeopen.Open(ctx, database, slog.New(slog.DiscardHandler))
	})
}

// nodeReceiver runs, over st, a receiver of the stripe source with a
// rejection counter of its own for a rule of window, as one process of a
// fleet would, and returns its ingest URL.
func nodeReceiver(t *testing.T, st store.DB, window time.Duration) string {
	t.Helper()
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	scheme, err := signature.New(signature.Options{Scheme: "stripe", Secrets: []string{stripeSecret}})
	if err != nil {
		t.Fatal(err)
	}
	counter := receiver.NewRejectionCounter(st, window, logger)
	t.Cleanup(counter.Close)
	metrics := receiver.NewMetrics(prometheus.NewRegistry())
	rejections := receiver.NewRejectionRecorder(st, receiver.RejectionOptions{}, metrics, logger)
	t.Cleanup(rejections.Close)
	rc := receiver.New(receiver.Options{
		Sources:    []receiver.Source{{Name: "stripe", Scheme: scheme, MaxBody: maxBody}},
		Rejections: rejections,
		Rejected:   counter,
		Metrics:    metrics,
		Logger:     logger,
	})
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/{source}", rc)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/webhooks/stripe"
}

// postForged posts n stripe requests signed with a secret the source does
// not hold, each answered 401.
func postForged(t *testing.T, url string, n int) {
	t.Helper()
	for range n {
		resp, _ := do(t, signedStripe(t, url, "whsec_forged", stripeBody("evt_forged", "invoice.paid"), time.Now()))
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("forged post: %d, want 401", resp.StatusCode)
		}
	}
}

// waitCounted waits until the fleet's counts of the stripe source since
// since add up to n.
func waitCounted(t *testing.T, st store.FleetAlerts, since time.Time, n int64) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, "the rejections counted in the database", func() error {
		cs, err := st.RejectionsSince(context.Background(), since)
		if err != nil {
			return err
		}
		var sum int64
		for _, c := range cs {
			sum += c.N
		}
		return testkit.Check(sum == n, "%d counted", sum)
	})
}

// TestSignatureRuleCountsTheFleet spreads forged requests over two
// receivers of one database, each under the threshold: the fleet's total
// is over it and raises one alert, which a second evaluation — another
// process's, later in the window — does not raise again.
func TestSignatureRuleCountsTheFleet(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			const window = time.Minute
			st := migratedStore(t, driver.URL(t))
			a, b := nodeReceiver(t, st, window), nodeReceiver(t, st, window)
			var raised []receiver.SignatureAlert
			rule := func() *receiver.SignatureRule { // each process's own
				return &receiver.SignatureRule{Store: st, Threshold: 5, Window: window,
					Raise: func(al receiver.SignatureAlert) { raised = append(raised, al) }}
			}
			start := time.Now().Add(-time.Second)

			postForged(t, a, 3)
			postForged(t, b, 2)
			waitCounted(t, st, start.Add(-window), 5)
			if err := rule().Evaluate(t.Context()); err != nil {
				t.Fatal(err)
			}
			if len(raised) != 0 {
				t.Fatalf("alerts at the threshold: %+v, want none (above it raises)", raised)
			}

			postForged(t, b, 1)
			waitCounted(t, st, start.Add(-window), 6)
			if err := rule().Evaluate(t.Context()); err != nil {
				t.Fatal(err)
			}
			evaluated := time.Now()
			if len(raised) != 1 {
				t.Fatalf("alerts = %+v, want 1", raised)
			}
			al := raised[0]
			if al.Kind != "signature_failures" || al.Source != "stripe" || al.Rejections != 6 || al.Threshold != 5 ||
				al.WindowSeconds != 60 || !reflect.DeepEqual(al.Reasons, map[string]int64{"signature_mismatch": 6}) {
				t.Errorf("alert = %+v", al)
			}
			if al.WindowStart.After(evaluated.Add(-window)) || al.WindowStart.Before(start.Add(-window-time.Second)) {
				t.Errorf("window start %v, want a minute before the evaluation", al.WindowStart)
			}
			if want := "stripe: 6 requests rejected within 1m, above the alert threshold of 5: signature_mismatch 6"; al.Summary != want {
				t.Errorf("summary = %q, want %q", al.Summary, want)
			}

			postForged(t, a, 6) // each process over the threshold on its own now
			waitCounted(t, st, start.Add(-window), 12)
			if err := rule().Evaluate(t.Context()); err != nil {
				t.Fatal(err)
			}
			if len(raised) != 1 {
				t.Errorf("alerts after a second evaluation within the window = %d, want still 1", len(raised))
			}
		})
	}
}

// TestSignatureRuleNextWindow evaluates the rule a window later: the counts
// of the window before no longer count, and are deleted; a new flood over
// the threshold raises the source's next alert.
func TestSignatureRuleNextWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := migratedStore(t, testdb.SQLiteURL(t))
	const window = 5 * time.Minute
	t0 := time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
	now := t0
	var raised []receiver.SignatureAlert
	rule := &receiver.SignatureRule{Store: st, Threshold: 3, Window: window, Now: func() time.Time { return now },
		Raise: func(al receiver.SignatureAlert) { raised = append(raised, al) }}
	count := func(at time.Time, reason string, n int64) {
		t.Helper()
		if err := st.CountRejections(ctx, []store.RejectionCount{{Source: "stripe", Reason: reason, At: at, N: n}}); err != nil {
			t.Fatal(err)
		}
	}
	count(t0.Add(-time.Minute), "signature_mismatch", 3)
	count(t0.Add(-2*time.Minute), "signature_missing", 1)
	if err := rule.Evaluate(ctx); err != nil {
		t.Fatal(err)
	}
	if len(raised) != 1 || raised[0].Rejections != 4 || raised[0].Reasons["signature_missing"] != 1 {
		t.Fatalf("alerts = %+v, want one of 4 rejections", raised)
	}
	if want := "stripe: 4 requests rejected within 5m, above the alert threshold of 3: signature_mismatch 3, signature_missing 1"; raised[0].Summary != want {
		t.Errorf("summary = %q, want %q", raised[0].Summary, want)
	}

	now = t0.Add(window)
	count(now.Add(-time.Second), "signature_mismatch", 2)
	if err := rule.Evaluate(ctx); err != nil {
		t.Fatal(err)
	}
	if len(raised) != 1 {
		t.Fatalf("alerts = %+v: the window before no longer counts, 2 are under the threshold", raised)
	}
	if cs, err := st.RejectionsSince(ctx, t0.Add(-time.Hour)); err != nil || len(cs) != 1 || cs[0].N != 2 {
		t.Errorf("counts kept = %+v, %v: want only the current window's", cs, err)
	}
	count(now, "signature_mismatch", 2)
	if err := rule.Evaluate(ctx); err != nil {
		t.Fatal(err)
	}
	if len(raised) != 2 || raised[1].Rejections != 4 || !raised[1].WindowStart.Equal(t0) {
		t.Errorf("alerts = %+v, want a second one, of the window from %v", raised, t0)
	}
}
