package sqlite

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/store"
)

// auditRow is one row of the replays table.
type auditRow struct {
	Kind, Actor, Filter                 string
	Matched, Rearmed, InFlight, Created int64
	DryRun                              bool
}

// TestAuditRows checks the audit rows of a replay, its dry run, and a
// backfill.
func TestAuditRows(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	ctx := context.Background()
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	item := store.IngestItem{
		Event: store.Event{
			ID: ulid.MustNew(ulid.Timestamp(now), rand.Reader).String(), Source: "stripe",
			ProviderEventID: "evt_1", IDOrigin: store.IDFromHeader, Type: "invoice.paid",
			Body: []byte("{}"), SignatureSlot: store.NoSlot, ReceivedAt: now,
		},
		Deliveries: []store.NewDelivery{{Destination: "billing"}},
	}
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

	rows, err := s.reader.QueryContext(ctx,
		`SELECT kind, actor, filter, matched, rearmed, in_flight, created, dry_run FROM replays ORDER BY id`)
	if err != nil {
		t.Fatalf("read replays: %v", err)
	}
	defer rows.Close()
	var got []auditRow
	for rows.Next() {
		var r auditRow
		if err := rows.Scan(&r.Kind, &r.Actor, &r.Filter, &r.Matched, &r.Rearmed, &r.InFlight, &r.Created, &r.DryRun); err != nil {
			t.Fatalf("read replays: %v", err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read replays: %v", err)
	}
	filter := `{"source":"stripe","type":"invoice.*","since":"2026-03-03T09:00:00Z","until":"2026-03-03T10:00:00Z"}`
	want := []auditRow{
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
