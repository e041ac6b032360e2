package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/failure"
	"github.com/hookrelay/hookrelay/internal/store"
)

// failures calls Failures and fails the test on error or a nil list.
func failures(t *testing.T, s store.DB, req store.FailuresRequest) []store.FailureGroup {
	t.Helper()
	gs, err := s.Failures(context.Background(), req)
	if err != nil {
		t.Fatalf("Failures(%+v): %v", req, err)
	}
	if gs == nil {
		t.Fatalf("Failures(%+v) = nil, want a non-nil slice", req)
	}
	return gs
}

// failWith claims the oldest due delivery of destination at now and
// records its attempt as failed (due again in an hour) or dead, with the
// status code and error text given.
func failWith(t *testing.T, s store.DB, destination string, status store.DeliveryStatus, code int, text string, now time.Time) store.Claim {
	t.Helper()
	cs := claim(t, s, destination, 1, now)
	if len(cs) != 1 {
		t.Fatalf("claim %s: %d deliveries, want 1", destination, len(cs))
	}
	c := store.Completion{
		DeliveryID: cs[0].Delivery.ID, LeaseToken: cs[0].LeaseToken, Status: status, Now: now,
		Attempt: store.Attempt{AttemptedAt: now, Duration: time.Millisecond, StatusCode: code, Error: text},
	}
	if status == store.StatusFailed {
		c.NextAttemptAt = now.Add(time.Hour)
	}
	complete(t, s, c)
	return cs[0]
}

// testFailuresGrouped groups the failed and dead deliveries by
// destination, status and kind, with their counts, first and last seen,
// the window of their events and an example; deliveries in any other
// status are not failures. The window, with the group's destination and
// status, replays the group.
func testFailuresGrouped(t *testing.T, s store.DB) {
	if gs := failures(t, s, store.FailuresRequest{}); len(gs) != 0 {
		t.Fatalf("Failures of an empty store = %+v", gs)
	}
	received := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Minute) }
	settled := func(i int) time.Time { return baseTime.Add(time.Hour + time.Duration(i)*time.Second) }
	ev := make([]store.Event, 11)
	var items []store.IngestItem
	for i := range ev {
		ev[i] = eventAt("stripe", fmt.Sprintf("evt_fail_%d", i), received(i))
		dest := "billing"
		if i >= 9 {
			dest = "ledger"
		}
		items = append(items, item(ev[i], dest))
	}
	ingest(t, s, items...)
	// Claims take the oldest due delivery first: ev[0], ev[1], ...
	failWith(t, s, "billing", store.StatusFailed, 503, "status 503", settled(0))
	failWith(t, s, "billing", store.StatusFailed, 502, "status 502", settled(1))
	failWith(t, s, "billing", store.StatusFailed, 0, "timeout after 10s", settled(2))
	failWith(t, s, "billing", store.StatusDead, 500, "status 500", settled(3))
	failWith(t, s, "billing", store.StatusDead, 0, "dial tcp 127.0.0.1:9: connect: connection refused", settled(4))
	complete(t, s, outcome(claim(t, s, "billing", 1, settled(5))[0], store.StatusDone, settled(5))) // ev[5]
	held := claim(t, s, "billing", 1, settled(6))                                                   // ev[6] processing
	if err := s.ReleaseDeliveries(context.Background(), []store.Release{{DeliveryID: held[0].Delivery.ID, LeaseToken: held[0].LeaseToken}}); err != nil {
		t.Fatal(err) // ev[6] pending again
	}
	if _, err := s.SkipDelivery(context.Background(), deliveryTo(t, s, ev[7].ID, "billing").ID, "ops", settled(7)); err != nil {
		t.Fatal(err)
	}
	claim(t, s, "billing", 2, settled(8)) // ev[6] and ev[8] processing
	failWith(t, s, "ledger", store.StatusDead, 404, "status 404", settled(9))
	failWith(t, s, "ledger", store.StatusFailed, 0, "tls: failed to verify certificate: x509: certificate signed by unknown authority", settled(10))

	ms := func(t time.Time) time.Time { return t.Truncate(time.Millisecond) }
	group := func(dest string, status store.DeliveryStatus, kind failure.Kind, first, last int, example int, code int, text string) store.FailureGroup {
		return store.FailureGroup{
			Destination: dest, Status: status, Kind: kind, Count: int64(last - first + 1),
			FirstSeen: stored(settled(first)), LastSeen: stored(settled(last)),
			ReceivedSince: ms(received(first)), ReceivedUntil: ms(received(last)).Add(time.Millisecond),
			ExampleEventID: ev[example].ID, ExampleStatusCode: code, ExampleError: text,
		}
	}
	want := []store.FailureGroup{
		group("billing", store.StatusFailed, failure.Status5xx, 0, 1, 1, 502, "status 502"),
		group("billing", store.StatusFailed, failure.Timeout, 2, 2, 2, 0, "timeout after 10s"),
		group("billing", store.StatusDead, failure.Status5xx, 3, 3, 3, 500, "status 500"),
		group("billing", store.StatusDead, failure.Refused, 4, 4, 4, 0, "dial tcp 127.0.0.1:9: connect: connection refused"),
		group("ledger", store.StatusFailed, failure.TLS, 10, 10, 10, 0, "tls: failed to verify certificate: x509: certificate signed by unknown authority"),
		group("ledger", store.StatusDead, failure.Status4xx, 9, 9, 9, 404, "status 404"),
	}
	checkFailures(t, "every failure", failures(t, s, store.FailuresRequest{}), want)
	checkFailures(t, "ledger's", failures(t, s, store.FailuresRequest{Destination: "ledger"}), want[4:])
	checkFailures(t, "an unknown destination's", failures(t, s, store.FailuresRequest{Destination: "nowhere"}), nil)

	// The window of billing's failed 5xx holds ev[0] and ev[1], not
	// ev[2] (failed too, a minute later): a replay of it re-arms the two.
	g := want[0]
	res := replay(t, s, store.ReplayRequest{Actor: "ops", Now: settled(20), Filter: store.EventFilter{
		Destination: g.Destination, Status: g.Status, Since: g.ReceivedSince, Until: g.ReceivedUntil,
	}})
	if res.Matched != 2 || res.Rearmed != 2 {
		t.Errorf("replay of the group's window: %+v, want 2 matched and re-armed", res)
	}
	checkFailures(t, "after the replay", failures(t, s, store.FailuresRequest{Destination: "billing"}), want[1:4])
}

// checkFailures fails unless got is want, in order.
func checkFailures(t *testing.T, what string, got, want []store.FailureGroup) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s failures: %d groups, want %d:\n got %+v\nwant %+v", what, len(got), len(want), got, want)
		return
	}
	for i := range want {
		g, w := got[i], want[i]
		if !g.FirstSeen.Equal(w.FirstSeen) || !g.LastSeen.Equal(w.LastSeen) ||
			!g.ReceivedSince.Equal(w.ReceivedSince) || !g.ReceivedUntil.Equal(w.ReceivedUntil) {
			t.Errorf("%s failures, group %d: times\n got %+v\nwant %+v", what, i, g, w)
		}
		g.FirstSeen, g.LastSeen, g.ReceivedSince, g.ReceivedUntil = w.FirstSeen, w.LastSeen, w.ReceivedSince, w.ReceivedUntil
		if g != w {
			t.Errorf("%s failures, group %d:\n got %+v\nwant %+v", what, i, g, w)
		}
	}
}

// failureSamples are last status codes and errors to classify: every
// status class's bounds, every text of failure.TextRules alone and within
// others, every two rules' texts in one error (the first rule must win),
// and texts that look like a rule's but differ in case or in a byte.
func failureSamples() []store.Attempt {
	var out []store.Attempt
	for _, code := range []int{1, 100, 199, 200, 299, 300, 399, 400, 401, 499, 500, 599, 600, 999} {
		out = append(out,
			store.Attempt{StatusCode: code, Error: fmt.Sprintf("status %d", code)},
			store.Attempt{StatusCode: code, Error: "dial tcp 127.0.0.1:9: connect: connection refused"})
	}
	for _, r := range failure.TextRules {
		for _, s := range r.Texts {
			out = append(out, store.Attempt{Error: s}, store.Attempt{Error: "post: " + s + " (100% _done_)"},
				store.Attempt{Error: strings.ToUpper(s)})
		}
	}
	for _, a := range failure.TextRules {
		for _, b := range failure.TextRules {
			if a.Kind != b.Kind {
				out = append(out, store.Attempt{Error: a.Texts[0] + ": " + b.Texts[len(b.Texts)-1]})
			}
		}
	}
	for _, s := range []string{"", " ", "order 42 not found", "connection refuse", "connéction refused", "tls； handshake",
		"ＥＯＦ", "EO F", "timeout after", "sign delivery:", "lookup ", "%", "_", "'", "\\"} {
		out = append(out, store.Attempt{Error: s})
	}
	return out
}

// testFailureKindsAsClassify records each of failureSamples as the last
// attempt of a dead delivery to a destination of its own, and checks that
// the store files each under the kind failure.Classify gives it: the SQL
// that groups failures and the Go function are one definition.
func testFailureKindsAsClassify(t *testing.T, s store.DB) {
	samples := failureSamples()
	e := eventAt("stripe", "evt_kinds", baseTime)
	dests := make([]string, len(samples))
	for i := range samples {
		dests[i] = fmt.Sprintf("k%03d", i)
	}
	ingest(t, s, item(e, dests...))
	now := baseTime.Add(time.Minute)
	for i, a := range samples {
		failWith(t, s, dests[i], store.StatusDead, a.StatusCode, a.Error, now)
	}
	kinds := map[string]failure.Kind{}
	for _, g := range failures(t, s, store.FailuresRequest{}) {
		if g.Count != 1 {
			t.Errorf("%s: %d failures, want 1", g.Destination, g.Count)
		}
		kinds[g.Destination] = g.Kind
	}
	for i, a := range samples {
		want := failure.Classify(a.StatusCode, a.Error)
		if got, ok := kinds[dests[i]]; !ok || got != want {
			t.Errorf("status %d, error %q: the store files it under %q, Classify under %q", a.StatusCode, a.Error, got, want)
		}
	}
}

// testFailuresThroughTransitions follows the failure groups, which are
// counted as deliveries change state, through every way a delivery joins,
// moves between or leaves them: a failed outcome, another failed outcome
// of another kind, a claim of a failed delivery, death, a release back to
// failed without an outcome (Classify of no code and no error), a replay
// and a prune.
func testFailuresThroughTransitions(t *testing.T, s store.DB) {
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Minute) }
	ev := make([]store.Event, 3)
	for i := range ev {
		dest := "billing"
		if i == 2 {
			dest = "ledger"
		}
		ev[i] = eventAt("stripe", fmt.Sprintf("evt_trans_%d", i), at(i))
		ingest(t, s, item(ev[i], dest))
	}
	checkGroups := func(step string, want ...string) {
		t.Helper()
		var got []string
		for _, g := range failures(t, s, store.FailuresRequest{}) {
			got = append(got, fmt.Sprintf("%s/%s/%s=%d", g.Destination, g.Status, g.Kind, g.Count))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: groups %v, want %v", step, got, want)
		}
	}
	failWith(t, s, "billing", store.StatusFailed, 503, "status 503", at(10))      // ev[0]
	failWith(t, s, "billing", store.StatusFailed, 0, "timeout after 10s", at(10)) // ev[1]
	checkGroups("failed", "billing/failed/5xx=1", "billing/failed/timeout=1")

	// ev[2]'s lease runs out: claimed again (its second attempt counted),
	// then released, it is failed with no outcome recorded.
	held := claim(t, s, "ledger", 1, at(11))
	checkGroups("a claim of a pending delivery", "billing/failed/5xx=1", "billing/failed/timeout=1")
	late := claim(t, s, "ledger", 1, at(11).Add(testLease))
	if err := s.ReleaseDeliveries(context.Background(), []store.Release{{DeliveryID: late[0].Delivery.ID, LeaseToken: late[0].LeaseToken}}); err != nil {
		t.Fatal(err)
	}
	checkLeaseLost(t, s, outcome(held[0], store.StatusDone, at(30)))
	checkGroups("released", "billing/failed/5xx=1", "billing/failed/timeout=1", "ledger/failed/other=1")

	// ev[0] and ev[1] are due an hour after their failure.
	failWith(t, s, "billing", store.StatusFailed, 0, "dial tcp 10.0.0.7:443: connect: connection refused", at(71)) // ev[0]
	checkGroups("failed again, another way", "billing/failed/timeout=1", "billing/failed/refused=1", "ledger/failed/other=1")
	cs := claim(t, s, "billing", 1, at(72))
	checkClaimed(t, cs, ev[1])
	checkGroups("a claim of a failed delivery", "billing/failed/refused=1", "ledger/failed/other=1")
	c := outcome(cs[0], store.StatusDead, at(72))
	c.Attempt.StatusCode, c.Attempt.Error = 404, "status 404"
	complete(t, s, c)
	checkGroups("dead", "billing/failed/refused=1", "billing/dead/4xx=1", "ledger/failed/other=1")

	res := replay(t, s, store.ReplayRequest{Actor: "ops", Now: at(300), Filter: store.EventFilter{Status: store.StatusFailed}})
	if res.Rearmed != 2 {
		t.Fatalf("replay of the failed: %+v, want 2 re-armed", res)
	}
	checkGroups("replay", "billing/dead/4xx=1")
	if n := prune(t, s, store.PruneRequest{DeadBefore: at(400), Limit: 10}); n != 1 {
		t.Fatalf("pruned %d events, want the dead one", n)
	}
	checkGroups("prune")
}
