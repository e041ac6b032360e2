package storetest

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// pairTests are the cases that need two stores of the driver: a copy's
// source and its target.
var pairTests = []struct {
	name string
	run  func(t *testing.T, open OpenFunc)
}{
	{"TransferCopiesEverything", testTransferCopiesEverything},
}

// Copy copies every table of src into dst in batches of batch rows, as
// `hookrelay copy-store` does, and finishes the import.
func Copy(t *testing.T, src, dst store.Transfer, batch int) {
	t.Helper()
	ctx := context.Background()
	for _, table := range src.TransferTables() {
		var after []any
		for {
			rows, last, err := src.ExportRows(ctx, table, after, batch)
			if err != nil {
				t.Fatalf("ExportRows(%s): %v", table, err)
			}
			if len(rows.Rows) == 0 {
				break
			}
			if len(rows.Rows) > batch {
				t.Fatalf("ExportRows(%s) returned %d rows, want at most %d", table, len(rows.Rows), batch)
			}
			if err := dst.ImportRows(ctx, rows); err != nil {
				t.Fatalf("ImportRows(%s): %v", table, err)
			}
			after = last
		}
	}
	if err := dst.FinishImport(ctx); err != nil {
		t.Fatalf("FinishImport: %v", err)
	}
}

// exportAll returns every row of table.
func exportAll(t *testing.T, s store.Transfer, table string) store.TableRows {
	t.Helper()
	all := store.TableRows{Table: table}
	var after []any
	for {
		rows, last, err := s.ExportRows(context.Background(), table, after, 1000)
		if err != nil {
			t.Fatalf("ExportRows(%s): %v", table, err)
		}
		all.Columns = rows.Columns
		if len(rows.Rows) == 0 {
			return all
		}
		all.Rows = append(all.Rows, rows.Rows...)
		after = last
	}
}

// A store with events in every delivery state, a tombstone, a paused
// destination, a rejection, ingest and secret-slot counts, a signature
// digest and an audit key is copied, in batches of two rows, into an
// empty store of the same driver: every row of every table arrives as it
// was, but for the lease of the processing delivery, which ends when it
// was taken. The copy then claims what was pending, processing or failed
// with the same delivery ids, refuses a stored provider id as a
// duplicate, finds the signature digest, keeps the audit key, and gives
// new rows new ids.
func testTransferCopiesEverything(t *testing.T, open OpenFunc) {
	CheckCopy(t, open(t), open(t), func(t *testing.T, src, dst store.DB) { Copy(t, src, dst, 2) })
}

// CheckCopy fills src, a fresh store, with rows in every table and every
// delivery state, has copy copy it into dst, a fresh store of the same
// driver or another, and checks what the copy holds and does (see
// TransferCopiesEverything).
func CheckCopy(t *testing.T, src, dst store.DB, copy func(t *testing.T, src, dst store.DB)) {
	t.Helper()
	ctx := context.Background()
	now := baseTime
	states := []store.DeliveryStatus{store.StatusProcessing, store.StatusFailed, store.StatusDone, store.StatusDead, store.StatusSkipped}
	var (
		items []store.IngestItem
		ids   = map[store.DeliveryStatus]string{}
	)
	for _, status := range store.Statuses {
		e := newEvent("stripe", "evt_"+string(status)+"_x")
		ids[status] = e.ID
		it := item(e, "billing", "audit")
		if status == store.StatusPending {
			it.SignatureDigest = []byte("digest-of-the-pending-event-----")
		}
		items = append(items, it)
	}
	ingest(t, src, items...)
	want := map[string]store.DeliveryStatus{}
	for _, s := range states {
		if s != store.StatusSkipped {
			want[ids[s]] = s
		}
	}
	settle(t, src, "billing", now, want)
	if _, err := src.SkipDelivery(ctx, deliveryTo(t, src, ids[store.StatusSkipped], "billing").ID, "alice", now); err != nil {
		t.Fatalf("SkipDelivery: %v", err)
	}
	purge(t, src, "alice", "erasure request", now, ids[store.StatusPurged])
	if err := src.SetPaused(ctx, "audit", true, "alice", now); err != nil {
		t.Fatalf("SetPaused: %v", err)
	}
	if err := src.RecordRejections(ctx, []store.Rejection{{At: now, Source: "stripe", Reason: "bad signature", BodySize: 3, Skew: time.Second, HasSkew: true}}); err != nil {
		t.Fatalf("RecordRejections: %v", err)
	}
	if err := src.CountIngest(ctx, map[string]store.SourceStats{"stripe": {Received: 8, Duplicates: 1, Rejected: 1}}); err != nil {
		t.Fatalf("CountIngest: %v", err)
	}
	countSlots(t, src, now, store.SlotCount{Source: "stripe", Secret: "fp0", Verified: 8, Last: now})
	registerHandlers(t, src, now, store.HandlerDestination{Name: "orders", Sources: []string{"stripe"}, Types: []string{"invoice.*"}})
	auditKey, err := src.AuditKey(ctx)
	if err != nil {
		t.Fatalf("AuditKey: %v", err)
	}

	before, err := src.TableCounts(ctx)
	if err != nil {
		t.Fatalf("TableCounts: %v", err)
	}
	empty, err := dst.TableCounts(ctx)
	if err != nil {
		t.Fatalf("TableCounts: %v", err)
	}
	for _, table := range src.TransferTables() {
		if before[table] == 0 {
			t.Errorf("the source's %s is empty: the case copies nothing of it", table)
		}
		if empty[table] != 0 {
			t.Errorf("a fresh store holds %d rows of %s, want 0", empty[table], table)
		}
	}

	activity := func(s store.DB) []store.ActivityBucket {
		t.Helper()
		since := now.Truncate(time.Minute).Add(-time.Hour)
		got, err := s.Activity(ctx, since, since.Add(2*time.Hour), time.Minute)
		if err != nil {
			t.Fatalf("Activity: %v", err)
		}
		return got
	}
	counted := activity(src)

	copy(t, src, dst)

	// The activity counters are not copied: the triggers count the rows
	// the copy inserts as they count any.
	if got := activity(dst); !reflect.DeepEqual(got, counted) {
		t.Errorf("Activity of the copy = %+v, want the source's %+v", got, counted)
	}
	after, err := dst.TableCounts(ctx)
	if err != nil {
		t.Fatalf("TableCounts: %v", err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Errorf("TableCounts after the copy = %v, want %v", after, before)
	}
	for _, table := range src.TransferTables() {
		wantRows := exportAll(t, src, table)
		if table == "deliveries" {
			dropLeases(wantRows)
		}
		if got := exportAll(t, dst, table); !reflect.DeepEqual(got, wantRows) {
			t.Errorf("%s copied as\n%v\nwant\n%v", table, got.Rows, wantRows.Rows)
		}
	}

	// The lease of the processing delivery is gone: a claim a minute
	// later, well inside it, takes it again, with the pending one; the
	// failed one comes when due; the final ones never.
	pending := deliveryTo(t, src, ids[store.StatusPending], "billing")
	processing := deliveryTo(t, src, ids[store.StatusProcessing], "billing")
	failed := deliveryTo(t, src, ids[store.StatusFailed], "billing")
	var got []int64
	for _, c := range claim(t, dst, "billing", 100, now.Add(time.Minute)) {
		got = append(got, c.Delivery.ID)
		complete(t, dst, outcome(c, store.StatusDone, now.Add(time.Minute)))
	}
	slices.Sort(got)
	if wantIDs := sortedIDs(pending.ID, processing.ID); !slices.Equal(got, wantIDs) {
		t.Errorf("claim on the copy took deliveries %v, want %v (pending and processing)", got, wantIDs)
	}
	got = nil
	for _, c := range claim(t, dst, "billing", 100, now.Add(2*time.Hour)) {
		got = append(got, c.Delivery.ID)
	}
	if !slices.Equal(got, []int64{failed.ID}) {
		t.Errorf("claim on the copy two hours later took %v, want the failed delivery %d", got, failed.ID)
	}

	// The dedupe, the replayed-signature rule, the pause and the audit key
	// hold on the copy; new rows get new ids.
	dup := newEvent("stripe", "evt_done_x")
	fresh := newEvent("stripe", "evt_after_copy")
	replayed := item(newEvent("stripe", "evt_other"), "billing")
	replayed.SignatureDigest = []byte("digest-of-the-pending-event-----")
	checkOutcomes(t, ingest(t, dst, item(dup, "billing"), item(fresh, "billing"), replayed),
		store.IngestDuplicate, store.IngestStored, store.IngestReplayedSignature)
	paused, err := dst.Paused(ctx)
	if _, ok := paused["audit"]; err != nil || !ok {
		t.Errorf("Paused on the copy = %v, %v; want audit paused", paused, err)
	}
	if key, err := dst.AuditKey(ctx); err != nil || !slices.Equal(key, auditKey) {
		t.Errorf("AuditKey on the copy = %x, %v; want the source's %x", key, err, auditKey)
	}
	last := before["deliveries"]
	for _, table := range []string{"deliveries"} {
		rows := exportAll(t, dst, table)
		maxID := int64(0)
		for _, r := range rows.Rows[:len(rows.Rows)-1] {
			maxID = max(maxID, r[0].(int64))
		}
		if id := rows.Rows[len(rows.Rows)-1][0].(int64); id <= maxID || int64(len(rows.Rows)) != last+1 {
			t.Errorf("the first delivery after the copy got id %d, want one above %d", id, maxID)
		}
	}
}

// dropLeases sets what ImportRows makes of a processing delivery: its
// lease ends when it was taken, with no token.
func dropLeases(rows store.TableRows) {
	col := func(name string) int { return slices.Index(rows.Columns, name) }
	for _, r := range rows.Rows {
		if r[col("status")] == string(store.StatusProcessing) {
			r[col("lease_until")], r[col("lease_token")] = r[col("updated_at")], nil
		}
	}
}

func sortedIDs(ids ...int64) []int64 {
	slices.Sort(ids)
	return ids
}

// CheckTransferSchema checks that the tables a copy moves are the
// schema's, column for column: columns holds every table of a migrated
// database with its columns, as the driver's catalog lists them; derived
// names the tables the copy leaves out on purpose (migration bookkeeping,
// counts that triggers derive), and, as TABLE.COLUMN, the columns of
// copied tables that the driver derives on import. A migration that adds
// a table or a column fails it until sqlstore.TransferTables has it too.
func CheckTransferSchema(t *testing.T, columns map[string][]string, derived ...string) {
	t.Helper()
	for _, name := range derived {
		if table, column, ok := strings.Cut(name, "."); ok {
			columns[table] = slices.DeleteFunc(columns[table], func(c string) bool { return c == column })
		}
	}
	for _, table := range sqlstore.TransferTables {
		got := slices.Sorted(slices.Values(columns[table.Name]))
		want := slices.Sorted(slices.Values(table.ColumnNames()))
		if !slices.Equal(got, want) {
			t.Errorf("table %s has columns %v; the copy moves %v", table.Name, got, want)
		}
		delete(columns, table.Name)
	}
	for _, name := range derived {
		delete(columns, name)
	}
	for name := range columns {
		t.Errorf("table %s is in the schema but a copy does not move it: add it to sqlstore.TransferTables", name)
	}
}
