package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// AuditRow is one row of the replays table, the audit log.
type AuditRow struct {
	Kind, Actor, Filter                 string
	Matched, Rearmed, InFlight, Created int64
	DryRun                              bool
}

// AuditRowsQuery reads the replays table in order, in AuditRow's fields'
// order.
const AuditRowsQuery = `SELECT kind, actor, filter, matched, rearmed, in_flight, created, dry_run FROM hookrelay.replays ORDER BY id`

// Rows is what both drivers' query results have: *sql.Rows and pgx.Rows.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// CheckAuditRows checks the audit rows of a replay, its dry run, and a
// backfill on s, a fresh store, read with query.
func CheckAuditRows(t *testing.T, s store.DB, query func(sql string) (Rows, error)) {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	item := Item("stripe", "1", []byte("{}"))
	item.Event.ID = idAt(now)
	item.Event.Type, item.Event.ReceivedAt = "invoice.paid", now
	if _, err := s.Ingest(ctx, []store.IngestItem{item}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	f := store.EventFilter{Source: "stripe", Type: "invoice.*", Since: now, Until: now.Add(time.Hour)}
	for _, dry := range []bool{true, false} {
		if _, err := s.Replay(ctx, store.ReplayRequest{Filter: f, DryRun: dry, Actor: "ops", Now: now}); err != nil {
			t.Fatalf("Replay: %v", err)
		}
	}
	if err := s.RecordBackfill(ctx, "ops", "late", now, now.Add(time.Hour), 7, false, now); err != nil {
		t.Fatalf("RecordBackfill: %v", err)
	}

	rows, err := query(AuditRowsQuery)
	if err != nil {
		t.Fatalf("read replays: %v", err)
	}
	var got []AuditRow
	for rows.Next() {
		var r AuditRow
		if err := rows.Scan(&r.Kind, &r.Actor, &r.Filter, &r.Matched, &r.Rearmed, &r.InFlight, &r.Created, &r.DryRun); err != nil {
			t.Fatalf("read replays: %v", err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read replays: %v", err)
	}
	filter := `{"source":"stripe","type":"invoice.*","since":"2026-03-03T09:00:00Z","until":"2026-03-03T10:00:00Z"}`
	want := []AuditRow{
		{Kind: "replay", Actor: "ops", Filter: filter, Matched: 1, DryRun: true},
		{Kind: "replay", Actor: "ops", Filter: filter, Matched: 1, Rearmed: 1},
		{Kind: "backfill", Actor: "ops", Filter: `{"destination":"late","since":"2026-03-03T09:00:00Z","until":"2026-03-03T10:00:00Z"}`, Created: 7},
	}
	if len(got) != len(want) {
		t.Fatalf("audit rows = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
