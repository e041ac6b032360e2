package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testCompleteOutcomes checks each outcome's effect on the delivery and
// the attempt it records.
func testCompleteOutcomes(t *testing.T, s store.DB) {
	claimedAt := baseTime.Add(time.Minute)
	now := claimedAt.Add(2 * time.Second)
	retry := now.Add(10 * time.Minute)
	for _, c := range []struct {
		status   store.DeliveryStatus
		code     int
		err      string
		snippet  string
		wantNext time.Time
		final    bool
	}{
		{store.StatusDone, 200, "", `{"ok":true}`, baseTime, true},
		{store.StatusSkipped, 202, "", "", baseTime, true},
		{store.StatusFailed, 503, "server answered 503", "busy\x00\xff", retry, false},
		{store.StatusDead, 0, "dial tcp 127.0.0.1:9: connection refused", "", baseTime, true},
	} {
		t.Run(string(c.status), func(t *testing.T) {
			e := dueEvent("evt_"+string(c.status), baseTime)
			ingest(t, s, item(e, "billing"))
			claims := claim(t, s, "billing", 1, claimedAt)
			checkClaimed(t, claims, e)
			attempt := store.Attempt{
				AttemptedAt: claimedAt.Add(time.Second), Duration: 1234 * time.Millisecond,
				StatusCode: c.code, Error: c.err, ResponseSnippet: c.snippet,
			}
			complete(t, s, store.Completion{
				DeliveryID: claims[0].Delivery.ID, LeaseToken: claims[0].LeaseToken,
				Status: c.status, NextAttemptAt: retry, Attempt: attempt, Now: now,
			})

			d := theDelivery(t, s, e.ID)
			if d.Status != c.status || d.Attempts != 1 || d.LastError != c.err || d.LastStatusCode != c.code {
				t.Errorf("delivery = %+v, want %s, 1 attempt, last error %q, last code %d", d, c.status, c.err, c.code)
			}
			checkTime(t, "NextAttemptAt", d.NextAttemptAt, c.wantNext)
			checkTime(t, "LeaseUntil", d.LeaseUntil, time.Time{})
			checkTime(t, "UpdatedAt", d.UpdatedAt, now)
			wantFinished := time.Time{}
			if c.final {
				wantFinished = now
			}
			checkTime(t, "FinishedAt", d.FinishedAt, wantFinished)

			as := attempts(t, s, d.ID)
			if len(as) != 1 {
				t.Fatalf("%d attempts recorded, want 1", len(as))
			}
			a := as[0]
			// The attempt that ends a delivery done is kept on its row,
			// without an id of its own or the response's start.
			want := attempt
			if c.status == store.StatusDone {
				want.ResponseSnippet = ""
			}
			if (a.ID == 0) != (c.status == store.StatusDone) || a.DeliveryID != d.ID || a.Duration != want.Duration ||
				a.StatusCode != c.code || a.Error != c.err || a.ResponseSnippet != want.ResponseSnippet {
				t.Errorf("attempt = %+v, want %+v of delivery %d (id 0 only when done)", a, want, d.ID)
			}
			checkTime(t, "AttemptedAt", a.AttemptedAt, attempt.AttemptedAt)
			checkLeaseLost(t, s, outcome(claims[0], store.StatusDone, now))
		})
	}
}

// testCompleteRetryThenDone follows one delivery through a failure, its
// retry and success: attempts count up and are listed oldest first.
func testCompleteRetryThenDone(t *testing.T, s store.DB) {
	e := dueEvent("evt_1", baseTime)
	ingest(t, s, item(e, "billing"))
	first := claim(t, s, "billing", 1, baseTime)
	retry := baseTime.Add(time.Minute)
	fail := outcome(first[0], store.StatusFailed, baseTime.Add(time.Second))
	fail.NextAttemptAt = retry
	complete(t, s, fail)

	checkClaimed(t, claim(t, s, "billing", 1, retry.Add(-time.Microsecond)))
	second := claim(t, s, "billing", 1, retry)
	checkClaimed(t, second, e)
	if second[0].Delivery.Attempts != 2 || second[0].Delivery.Status != store.StatusProcessing ||
		second[0].Delivery.LastStatusCode != 503 {
		t.Errorf("second claim = %+v, want attempt 2, processing, last code 503", second[0].Delivery)
	}
	done := outcome(second[0], store.StatusDone, retry.Add(time.Second))
	complete(t, s, done)

	d := theDelivery(t, s, e.ID)
	if d.Status != store.StatusDone || d.Attempts != 2 || d.LastError != "" || d.LastStatusCode != 200 {
		t.Errorf("delivery = %+v, want done after 2 attempts, last code 200, no error", d)
	}
	as := attempts(t, s, d.ID)
	if len(as) != 2 || as[0].StatusCode != 503 || as[1].StatusCode != 200 || as[0].ID == 0 || as[1].ID != 0 {
		t.Errorf("attempts = %+v, want the 503 (a row of its own) then the 200 (kept on the delivery)", as)
	}
	if len(as) == 2 && as[1].Duration != done.Attempt.Duration {
		t.Errorf("the 200 took %v, want %v", as[1].Duration, done.Attempt.Duration)
	}
	if len(as) == 2 {
		checkTime(t, "the 200's AttemptedAt", as[1].AttemptedAt, done.Attempt.AttemptedAt)
	}
}

// testCompleteStaleToken checks that an outcome under a lease that was
// lost records nothing.
func testCompleteStaleToken(t *testing.T, s store.DB) {
	e := dueEvent("evt_1", baseTime)
	ingest(t, s, item(e, "billing"))
	first := claim(t, s, "billing", 1, baseTime)
	expiry := baseTime.Add(testLease)
	second := claim(t, s, "billing", 1, expiry)
	checkClaimed(t, second, e)

	checkLeaseLost(t, s, outcome(first[0], store.StatusDone, expiry))
	wrong := outcome(second[0], store.StatusDead, expiry)
	wrong.LeaseToken = "not-a-token"
	checkLeaseLost(t, s, wrong)
	unknown := outcome(second[0], store.StatusDone, expiry)
	unknown.DeliveryID = second[0].Delivery.ID + 1000
	checkLeaseLost(t, s, unknown)

	d := theDelivery(t, s, e.ID)
	if d.Status != store.StatusProcessing || d.Attempts != 2 {
		t.Errorf("delivery = %+v, want still processing under the second claim", d)
	}
	checkTime(t, "LeaseUntil", d.LeaseUntil, expiry.Add(testLease))
	if as := attempts(t, s, d.ID); len(as) != 0 {
		t.Errorf("%d attempts recorded by lost leases, want none", len(as))
	}

	complete(t, s, outcome(second[0], store.StatusDone, expiry))
	checkLeaseLost(t, s, outcome(second[0], store.StatusDone, expiry))
	if as := attempts(t, s, d.ID); len(as) != 1 {
		t.Errorf("%d attempts recorded, want 1", len(as))
	}
}

func testCompleteSnippetCut(t *testing.T, s store.DB) {
	e := dueEvent("evt_1", baseTime)
	ingest(t, s, item(e, "billing"))
	c := outcome(claim(t, s, "billing", 1, baseTime)[0], store.StatusFailed, baseTime)
	c.Attempt.ResponseSnippet = strings.Repeat("é", 1000) // 2000 bytes
	complete(t, s, c)
	as := attempts(t, s, c.DeliveryID)
	if len(as) != 1 || as[0].ResponseSnippet != c.Attempt.ResponseSnippet[:1024] {
		t.Errorf("snippet of %d bytes stored, want its first 1024", len(as[0].ResponseSnippet))
	}
}

func testCompleteRejectsLiveStatus(t *testing.T, s store.DB) {
	ingest(t, s, item(dueEvent("evt_1", baseTime), "billing"))
	c := claim(t, s, "billing", 1, baseTime)[0]
	for _, status := range []store.DeliveryStatus{store.StatusPending, store.StatusProcessing, ""} {
		if err := s.CompleteDelivery(context.Background(), outcome(c, status, baseTime)); err == nil {
			t.Errorf("CompleteDelivery with status %q succeeded, want an error", status)
		}
	}
	complete(t, s, outcome(c, store.StatusDone, baseTime))
}

func testAttemptsOfUnknownDelivery(t *testing.T, s store.DB) {
	if as := attempts(t, s, 424242); len(as) != 0 {
		t.Errorf("unknown delivery has %d attempts, want none", len(as))
	}
}

// testRelease checks that a released delivery is due now, its attempt
// uncounted, and that a release under a lost lease changes nothing.
func testRelease(t *testing.T, s store.DB) {
	ctx := context.Background()
	fresh := dueEvent("evt_fresh", baseTime)
	retried := dueEvent("evt_retried", baseTime.Add(time.Second))
	future := dueEvent("evt_future", time.Now().Add(time.Hour))
	ingest(t, s, item(fresh, "billing"), item(retried, "audit"), item(future, "crm"))

	fail := outcome(claim(t, s, "audit", 1, baseTime.Add(time.Second))[0], store.StatusFailed, baseTime.Add(time.Second))
	fail.NextAttemptAt = baseTime.Add(time.Minute)
	complete(t, s, fail)
	claims := append(claim(t, s, "billing", 1, baseTime.Add(time.Minute)), claim(t, s, "audit", 1, baseTime.Add(time.Minute))...)
	checkClaimed(t, claims, fresh, retried)
	fc := claim(t, s, "crm", 1, future.ReceivedAt)

	rs := []store.Release{
		{DeliveryID: claims[0].Delivery.ID, LeaseToken: claims[0].LeaseToken},
		{DeliveryID: claims[1].Delivery.ID, LeaseToken: claims[1].LeaseToken},
		{DeliveryID: fc[0].Delivery.ID, LeaseToken: fc[0].LeaseToken},
	}
	if err := s.ReleaseDeliveries(ctx, rs); err != nil {
		t.Fatalf("ReleaseDeliveries: %v", err)
	}
	releasedAt := time.Now()
	for _, c := range []struct {
		e      store.Event
		status store.DeliveryStatus
		tries  int
	}{
		{fresh, store.StatusPending, 0},
		{retried, store.StatusFailed, 1},
		{future, store.StatusPending, 0},
	} {
		d := theDelivery(t, s, c.e.ID)
		if d.Status != c.status || d.Attempts != c.tries || !d.LeaseUntil.IsZero() || d.NextAttemptAt.After(releasedAt) {
			t.Errorf("released delivery of %s = %+v, want %s, %d attempts, no lease, due now", c.e.ProviderEventID, d, c.status, c.tries)
		}
	}
	// Released deliveries keep their place: the claim's clock need not be
	// this process's.
	checkClaimed(t, claim(t, s, "billing", 1, baseTime.Add(time.Minute)), fresh)
	checkClaimed(t, claim(t, s, "audit", 1, baseTime.Add(time.Minute)), retried)
	checkClaimed(t, claim(t, s, "crm", 1, releasedAt), future)

	// The leases are gone: releasing again, or completing, is refused.
	if err := s.ReleaseDeliveries(ctx, rs); err != nil {
		t.Fatalf("ReleaseDeliveries of released deliveries: %v", err)
	}
	if d := theDelivery(t, s, fresh.ID); d.Status != store.StatusProcessing || d.Attempts != 1 {
		t.Errorf("delivery after a stale release = %+v, want processing, attempt 1", d)
	}
	checkLeaseLost(t, s, outcome(claims[0], store.StatusDone, baseTime.Add(time.Minute)))
	if err := s.ReleaseDeliveries(ctx, nil); err != nil {
		t.Errorf("ReleaseDeliveries(nil): %v", err)
	}
}
