package postgres

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
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

// TestAuditRows checks the audit rows of a replay, its dry run, and a
// backfill.
func TestAuditRows(t *testing.T) {
	t.Parallel()
	s := openURL(t, testdb.PostgresURL(t))
	storetest.CheckAuditRows(t, s, func(query string) (storetest.Rows, error) {
		return s.other.Query(context.Background(), s.sql.SQL(query))
	})
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
		if err := s.other.QueryRow(ctx, s.sql.SQL(`SELECT pg_column_compression(body) FROM hookrelay.events WHERE id = $1`), it.Event.ID).Scan(&method); err != nil {
			t.Fatalf("pg_column_compression: %v", err)
		}
		if method != nil {
			t.Errorf("%s: body compressed with %s, want it stored uncompressed", it.Event.ProviderEventID, *method)
		}
	}
	var options []string
	// The table that holds the events: events, or, partitioned, the
	// partition of their period (a partitioned table has no storage).
	if err := s.other.QueryRow(ctx, `SELECT reloptions FROM pg_class WHERE oid = (SELECT tableoid FROM events WHERE id = $1)`,
		items[0].Event.ID).Scan(&options); err != nil {
		t.Fatalf("read reloptions: %v", err)
	}
	if strings.Join(options, ",") != "toast_tuple_target=8160" {
		t.Errorf("events reloptions = %v, want toast_tuple_target=8160", options)
	}
	var lz4, compression string
	if err := s.other.QueryRow(ctx, `SELECT
		coalesce((SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression'), false)::text,
		(SELECT attcompression::text FROM pg_attribute WHERE attrelid = (SELECT tableoid FROM events WHERE id = $1) AND attname = 'body')`,
		items[0].Event.ID).Scan(&lz4, &compression); err != nil {
		t.Fatalf("read compression: %v", err)
	}
	if want := map[string]string{"true": "l", "false": ""}[lz4]; compression != want {
		t.Errorf("body's compression = %q with lz4 support %s, want %q", compression, lz4, want)
	}
}
