package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// CountersFrom is the last migration before the counters that the later
// ones fill in from the rows already stored: the activity counters (0023).
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
// it, and checks that the counters count them: Activity per minute.
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
		exec(`INSERT INTO events (id, source, provider_event_id, id_origin, type, body, content_type, headers,
	signature_slot, occurred_at, received_at) VALUES (?, 'stripe', ?, 'header', 'invoice.paid', ?, 'application/json', '{}', 0, ?, ?)`,
			id, fmt.Sprintf("evt_legacy_%d", i), []byte(`{}`), l.Time(r.received), l.Time(r.received))
		exec(`INSERT INTO deliveries (event_id, destination, status, attempts, next_attempt_at, order_at,
	last_status_code, last_error, created_at, updated_at) VALUES (?, 'billing', ?, 1, ?, ?, ?, 'timeout after 10s', ?, ?)`,
			id, r.status, l.Time(r.received), l.Time(r.received), r.code, l.Time(r.received), l.Time(r.received))
		if !r.attempted.IsZero() {
			exec(`INSERT INTO attempts (delivery_id, attempted_at, duration_ms, status_code, error)
	SELECT id, ?, 5, ?, '' FROM deliveries WHERE event_id = ?`, l.Time(r.attempted), r.code, id)
		}
	}
	if err := l.Store.Migrate(ctx); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	checkActivity(t, l.Store, "backfilled", start, time.Minute, []store.ActivityBucket{
		{Received: 2}, {Received: 2, Delivered: 1, Failed: 1}, {Failed: 1}, {},
	})
	// What comes after counts on top.
	ingest(t, l.Store, item(eventAt("stripe", "evt_after", at(3, 0)), "billing"))
	checkActivity(t, l.Store, "after the migration", start, time.Minute, []store.ActivityBucket{
		{Received: 2}, {Received: 2, Delivered: 1, Failed: 1}, {Failed: 1}, {Received: 1},
	})
}
