package postgres

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testdb"
)

// opsItem returns an event of source stripe received at received, with
// an id of that time and the body given, delivered to billing.
func opsItem(providerID string, received time.Time, body []byte) store.IngestItem {
	return store.IngestItem{
		Event: store.Event{
			ID: ulid.MustNew(ulid.Timestamp(received), rand.Reader).String(), Source: "stripe",
			ProviderEventID: providerID, IDOrigin: store.IDFromHeader, Type: "invoice.paid",
			Body: body, SignatureSlot: store.NoSlot, ReceivedAt: received,
		},
		Deliveries: []store.NewDelivery{{Destination: "billing"}},
	}
}

// auditRow is one row of the replays table.
type auditRow struct {
	Kind, Actor, Filter                 string
	Matched, Rearmed, InFlight, Created int64
	DryRun                              bool
}

// auditRows reads the replays table in order.
func auditRows(t *testing.T, s *Store) []auditRow {
	t.Helper()
	rows, err := s.other.Query(context.Background(),
		`SELECT kind, actor, filter, matched, rearmed, in_flight, created, dry_run FROM replays ORDER BY id`)
	if err != nil {
		t.Fatalf("read replays: %v", err)
	}
	defer rows.Close()
	var out []auditRow
	for rows.Next() {
		var r auditRow
		if err := rows.Scan(&r.Kind, &r.Actor, &r.Filter, &r.Matched, &r.Rearmed, &r.InFlight, &r.Created, &r.DryRun); err != nil {
			t.Fatalf("read replays: %v", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read replays: %v", err)
	}
	return out
}

// TestAuditRows checks the audit rows of a replay, its dry run, and a
// backfill.
func TestAuditRows(t *testing.T) {
	t.Parallel()
	s := openURL(t, testdb.PostgresURL(t))
	ctx := context.Background()
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	if _, err := s.Ingest(ctx, []store.IngestItem{opsItem("evt_1", now, []byte("{}"))}); err != nil {
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
	got := auditRows(t, s)
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
		if !json.Valid([]byte(got[i].Filter)) {
			t.Errorf("row %d: filter %q is not JSON", i, got[i].Filter)
		}
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestBodiesStoredInline checks migration 0003's storage of bodies: a
// 2 KiB body, even a compressible one, is stored inline and uncompressed,
// and the column compresses larger ones with lz4 when the server can.
func TestBodiesStoredInline(t *testing.T) {
	t.Parallel()
	s := openURL(t, testdb.PostgresURL(t))
	ctx := context.Background()
	random := make([]byte, 2<<10)
	rand.Read(random)
	compressible := []byte(`{"data":"` + strings.Repeat("a", 2<<10-11) + `"}`)
	now := time.Now()
	items := []store.IngestItem{opsItem("evt_random", now, random), opsItem("evt_compressible", now, compressible)}
	if _, err := s.Ingest(ctx, items); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	for _, it := range items {
		var method *string
		if err := s.other.QueryRow(ctx, `SELECT pg_column_compression(body) FROM events WHERE id = $1`, it.Event.ID).Scan(&method); err != nil {
			t.Fatalf("pg_column_compression: %v", err)
		}
		if method != nil {
			t.Errorf("%s: body compressed with %s, want it stored uncompressed", it.Event.ProviderEventID, *method)
		}
	}
	var options []string
	if err := s.other.QueryRow(ctx, `SELECT reloptions FROM pg_class WHERE oid = 'events'::regclass`).Scan(&options); err != nil {
		t.Fatalf("read reloptions: %v", err)
	}
	if strings.Join(options, ",") != "toast_tuple_target=8160" {
		t.Errorf("events reloptions = %v, want toast_tuple_target=8160", options)
	}
	var lz4, compression string
	if err := s.other.QueryRow(ctx, `SELECT
		coalesce((SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression'), false)::text,
		(SELECT attcompression::text FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'body')`).Scan(&lz4, &compression); err != nil {
		t.Fatalf("read compression: %v", err)
	}
	if want := map[string]string{"true": "l", "false": ""}[lz4]; compression != want {
		t.Errorf("body's compression = %q with lz4 support %s, want %q", compression, lz4, want)
	}
}
