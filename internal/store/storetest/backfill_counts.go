package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/failure"
	"github.com/hookrelay/hookrelay/internal/store"
)

// CountersFrom is the last migration before the counters that the later
// ones fill in from the rows already stored: the activity counters (0023)
// and the failure counts (0024).
const CountersFrom = 22

// Legacy is a database migrated up to CountersFrom, to write rows into
// with SQL as the schema then was.
type Legacy struct {
	// Store is the store over it, not migrated further.
	Store store.DB
	// Exec runs a statement written with ? placeholders.
	Exec func(ctx context.Context, query string, args ...any) error
	// Time is a time as the driver stores it.
	Time func(time.Time) any
}

// CheckCountersBackfilled writes events, deliveries and attempts into l's
// database as they were stored before the counters' migrations, migrates
// it, and checks that the counters count them: Activity per minute, and
// Failures by kind, each failed or dead delivery under the kind
// failure.Classify gives its last status code and error.
func CheckCountersBackfilled(t *testing.T, l Legacy) {
	t.Helper()
	ctx := context.Background()
	start := baseTime.Truncate(time.Minute)
	at := func(minute int, second int) time.Time {
		return start.Add(time.Duration(minute)*time.Minute + time.Duration(second)*time.Second)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if err := l.Exec(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	type row struct {
		received, attempted time.Time
		status              string
		code                int
	}
	rows := []row{
		{at(0, 1), at(1, 1), "done", 200},
		{at(0, 2), at(1, 2), "failed", 503},
		{at(1, 3), at(2, 3), "dead", 0},
		{at(1, 4), time.Time{}, "pending", 0},
	}
	for i, r := range rows {
		id := idAt(r.received)
		exec(`INSERT INTO hookrelay.events (id, source, provider_event_id, id_origin, type, body, content_type, headers,
	signature_slot, occurred_at, received_at) VALUES (?, 'stripe', ?, 'header', 'invoice.paid', ?, 'application/json', '{}', 0, ?, ?)`,
			id, fmt.Sprintf("evt_legacy_%d", i), []byte(`{}`), l.Time(r.received), l.Time(r.received))
		exec(`INSERT INTO hookrelay.deliveries (event_id, destination, status, attempts, next_attempt_at, order_at,
	last_status_code, last_error, created_at, updated_at) VALUES (?, 'billing', ?, 1, ?, ?, ?, 'timeout after 10s', ?, ?)`,
			id, r.status, l.Time(r.received), l.Time(r.received), r.code, l.Time(r.received), l.Time(r.received))
		if !r.attempted.IsZero() {
			exec(`INSERT INTO hookrelay.attempts (delivery_id, attempted_at, duration_ms, status_code, error)
	SELECT id, ?, 5, ?, '' FROM hookrelay.deliveries WHERE event_id = ?`, l.Time(r.attempted), r.code, id)
		}
	}
	// A dead delivery of one more event to a destination of its own for
	// each sample of a last status code and error.
	samples := failureSamples()
	kindsID := idAt(at(5, 0))
	exec(`INSERT INTO hookrelay.events (id, source, provider_event_id, id_origin, type, body, content_type, headers,
	signature_slot, occurred_at, received_at) VALUES (?, 'stripe', 'evt_legacy_kinds', 'header', 'invoice.paid', ?, 'application/json', '{}', 0, ?, ?)`,
		kindsID, []byte(`{}`), l.Time(at(5, 0)), l.Time(at(5, 0)))
	for i, a := range samples {
		exec(`INSERT INTO hookrelay.deliveries (event_id, destination, status, attempts, next_attempt_at, order_at,
	last_status_code, last_error, created_at, updated_at) VALUES (?, ?, 'dead', 1, ?, ?, ?, ?, ?, ?)`,
			kindsID, fmt.Sprintf("k%03d", i), l.Time(at(5, 0)), l.Time(at(5, 0)), a.StatusCode, a.Error, l.Time(at(6, 0)), l.Time(at(6, 0)))
	}

	if err := l.Store.Migrate(ctx); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	checkActivity(t, l.Store, "backfilled", start, time.Minute, []store.ActivityBucket{
		{Received: 2}, {Received: 2, Delivered: 1, Failed: 1}, {Failed: 1}, {},
	})
	kinds := map[string]store.FailureGroup{}
	for _, g := range failures(t, l.Store, store.FailuresRequest{}) {
		kinds[g.Destination+"/"+string(g.Status)] = g
	}
	if g := kinds["billing/failed"]; g.Kind != failure.Status5xx || g.Count != 1 || g.ExampleStatusCode != 503 {
		t.Errorf("the failed delivery's group = %+v, want one 5xx", g)
	}
	if g := kinds["billing/dead"]; g.Kind != failure.Timeout || g.Count != 1 || !g.FirstSeen.Equal(at(1, 3)) {
		t.Errorf("the dead delivery's group = %+v, want one timeout first seen at %v", g, at(1, 3))
	}
	for i, a := range samples {
		want := failure.Classify(a.StatusCode, a.Error)
		if g := kinds[fmt.Sprintf("k%03d/dead", i)]; g.Kind != want || g.Count != 1 || g.ExampleEventID != kindsID {
			t.Errorf("status %d, error %q: backfilled into %+v, want kind %q", a.StatusCode, a.Error, g, want)
		}
	}
	if len(kinds) != 2+len(samples) {
		t.Errorf("%d groups, want %d", len(kinds), 2+len(samples))
	}

	// What comes after counts on top.
	ingest(t, l.Store, item(eventAt("stripe", "evt_after", at(3, 0)), "billing"))
	checkActivity(t, l.Store, "after the migration", start, time.Minute, []store.ActivityBucket{
		{Received: 2}, {Received: 2, Delivered: 1, Failed: 1}, {Failed: 1}, {Received: 1},
	})
}
