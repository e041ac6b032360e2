package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// openPartitioned opens a store on a schema of its own whose event log
// Migrate partitions by period.
func openPartitioned(t *testing.T, period store.PartitionPeriod) *Store {
	t.Helper()
	url := testdb.PostgresURL(t)
	return storetest.Migrated(t, func(ctx context.Context) (*Store, error) {
		return Open(ctx, url, Options{Partitions: period, IngestConns: 2, OtherConns: 4}, nil)
	})
}

// partItem returns an event of source stripe received at received, with
// an id of that time, delivered to dest.
func partItem(providerID string, received time.Time, dest string) store.IngestItem {
	return store.IngestItem{
		Event: store.Event{
			ID: ulid.MustNew(ulid.Timestamp(received), rand.Reader).String(), Source: "stripe",
			ProviderEventID: providerID, IDOrigin: store.IDFromHeader, Type: "invoice.paid",
			Body: []byte(`{"id":"` + providerID + `"}`), SignatureSlot: store.NoSlot, ReceivedAt: received,
		},
		Deliveries: []store.NewDelivery{{Destination: dest}},
	}
}

// ingestAll stores items, each as want says.
func ingestAll(t *testing.T, s *Store, want store.IngestOutcome, items ...store.IngestItem) {
	t.Helper()
	got, err := s.Ingest(context.Background(), items)
	if err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	for i, o := range got {
		if o != want {
			t.Errorf("Ingest %s: outcome %v, want %v", items[i].Event.ProviderEventID, o, want)
		}
	}
}

// finish claims every delivery of dest due at now and completes it with
// status, a failed attempt first when status is dead, so that attempts
// rows exist.
func finish(t *testing.T, s *Store, dest string, now time.Time, status store.DeliveryStatus) {
	t.Helper()
	ctx := context.Background()
	claims, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: dest, Max: 100, Lease: time.Minute, Now: now})
	if err != nil || len(claims) == 0 {
		t.Fatalf("claim %s: %d, %v", dest, len(claims), err)
	}
	for _, c := range claims {
		a := store.Attempt{AttemptedAt: now, StatusCode: 200}
		if status != store.StatusDone {
			a = store.Attempt{AttemptedAt: now, StatusCode: 500, Error: "server error"}
		}
		err := s.CompleteDelivery(ctx, store.Completion{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken,
			Status: status, Attempt: a, Now: now})
		if err != nil {
			t.Fatalf("complete %d: %v", c.Delivery.ID, err)
		}
	}
}

// checkCountsTrue checks that the delivery counts and the failure
// counts the store keeps are those of the deliveries stored.
func checkCountsTrue(t *testing.T, s *Store, when string) {
	t.Helper()
	ctx := context.Background()
	stats, err := s.Stats(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]int64{}
	for dest, ds := range stats.Destinations {
		for status, n := range ds.Counts {
			if n != 0 {
				kept[dest+"/"+string(status)] = n
			}
		}
	}
	for key, n := range sums(t, s, `SELECT destination || '/' || status || '/' || kind, sum(n)::bigint FROM hookrelay.failure_count_deltas GROUP BY 1 HAVING sum(n) <> 0`) {
		kept["failures/"+key] = n
	}
	stored := sums(t, s, `SELECT destination || '/' || status, count(*) FROM hookrelay.deliveries GROUP BY 1`)
	maps.Copy(stored, prefixed("failures/", sums(t, s, `SELECT destination || '/' || status || '/' || failure_kind, count(*)
		FROM hookrelay.deliveries WHERE status IN ('failed', 'dead') GROUP BY 1`)))
	if !maps.Equal(kept, stored) {
		t.Errorf("%s: counts kept %v, rows stored %v", when, kept, stored)
	}
}

func prefixed(prefix string, m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[prefix+k] = v
	}
	return out
}

// sums returns the (key, count) rows of query.
func sums(t *testing.T, s *Store, query string) map[string]int64 {
	t.Helper()
	rows, err := s.other.Query(context.Background(), s.sql.SQL(query))
	out, err := collectMap[string, int64](rows, err)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// count returns the number query returns.
func count(t *testing.T, s *Store, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := s.other.QueryRow(context.Background(), s.sql.SQL(query), args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// partitionOf returns the name of the events partition that holds id,
// without events_.
func partitionOf(t *testing.T, s *Store, id string) string {
	t.Helper()
	var name string
	if err := s.other.QueryRow(context.Background(), s.sql.SQL(`SELECT substr(c.relname, 8) FROM hookrelay.events e
		JOIN pg_class c ON c.oid = e.tableoid WHERE e.id = $1`), id).Scan(&name); err != nil {
		t.Fatalf("partition of %s: %v", id, err)
	}
	return name
}

// TestPartitionedDedupeAcrossPeriods posts one provider id in two
// periods: the second is a duplicate, whichever partition the first is
// in, and the event stays stored once.
func TestPartitionedDedupeAcrossPeriods(t *testing.T) {
	t.Parallel()
	s := openPartitioned(t, store.PartitionsHourly)
	ctx := context.Background()
	now := time.Now()
	first := partItem("evt_twice", now, "billing")
	later := partItem("evt_twice", now.Add(2*time.Hour), "billing")
	ingestAll(t, s, store.IngestStored, first)
	ingestAll(t, s, store.IngestDuplicate, later)
	ingestAll(t, s, store.IngestDuplicate, first, later) // the two in one batch, again
	if a, b := partitionOf(t, s, first.Event.ID), store.PartitionsHourly.Start(later.Event.ReceivedAt); a == periodName(b) {
		t.Fatalf("both periods are partition %s", a)
	}
	if n, err := s.CountEvents(ctx, ""); err != nil || n != 1 {
		t.Errorf("CountEvents = %d, %v; want 1", n, err)
	}
	e, err := s.EventByProviderID(ctx, "stripe", "evt_twice")
	if err != nil || e.ID != first.Event.ID {
		t.Errorf("EventByProviderID = %s, %v; want %s", e.ID, err, first.Event.ID)
	}
	other := partItem("evt_twice", now.Add(2*time.Hour), "billing")
	other.Event.Source = "github"
	ingestAll(t, s, store.IngestStored, other)
	if n := count(t, s, `SELECT count(*) FROM hookrelay.event_keys`); n != 2 {
		t.Errorf("event_keys holds %d rows, want 2", n)
	}
}

// openPlain opens a store on a schema of its own whose event log stays
// unpartitioned, whatever PartitionsEnv says.
func openPlain(t testing.TB) *Store {
	t.Helper()
	url := testdb.PostgresURL(t)
	return storetest.Migrated(t, func(ctx context.Context) (*Store, error) {
		return Open(ctx, url, Options{}, nil)
	})
}

// partitionedSince returns a store whose event log was partitioned by day
// as of days ago, with the partitions of every day since made as
// maintenance would have made them day after day.
func partitionedSince(t testing.TB, days int) (*Store, time.Time) {
	t.Helper()
	s := openPlain(t)
	ctx := context.Background()
	now := time.Now()
	if err := s.EnablePartitions(ctx, store.PartitionsDaily, now.AddDate(0, 0, -days), nil); err != nil {
		t.Fatalf("EnablePartitions: %v", err)
	}
	for d := days - 1; d >= 0; d-- {
		if _, err := s.MaintainPartitions(ctx, store.PartitionRequest{Period: store.PartitionsDaily, Now: now.AddDate(0, 0, -d)}); err != nil {
			t.Fatalf("MaintainPartitions: %v", err)
		}
	}
	return s, now
}

// TestPartitionDrop drops the periods past the retention: exactly those
// that ended before the bound, not one with a live delivery (until it is
// finished), with their keys, digests and counts.
func TestPartitionDrop(t *testing.T) {
	t.Parallel()
	s, now := partitionedSince(t, 10)
	ctx := context.Background()
	today := store.PartitionsDaily.Start(now)
	day := func(d int) time.Time { return today.AddDate(0, 0, d).Add(time.Hour) }

	done, dead := partItem("evt_done", day(-6), "a"), partItem("evt_dead", day(-6), "b")
	dead.SignatureDigest = []byte("digest-of-evt_dead")
	live := partItem("evt_live", day(-5), "c")
	kept := partItem("evt_kept", day(-4), "d")
	ingestAll(t, s, store.IngestStored, done, dead, live, kept)
	finish(t, s, "a", now, store.StatusDone)
	finish(t, s, "b", now, store.StatusDead)
	finish(t, s, "d", now, store.StatusDone)
	if got := partitionOf(t, s, done.Event.ID); got != periodName(today.AddDate(0, 0, -6)) {
		t.Fatalf("evt_done is in %s", got)
	}
	checkCountsTrue(t, s, "before the drop")

	req := store.PartitionRequest{Period: store.PartitionsDaily, Now: now, DropBefore: today.AddDate(0, 0, -4)}
	report, err := s.MaintainPartitions(ctx, req)
	if err != nil {
		t.Fatalf("MaintainPartitions: %v", err)
	}
	var dropped []string
	for _, p := range report.Dropped {
		dropped = append(dropped, p.Name)
		if p.Name == periodName(today.AddDate(0, 0, -6)) && (p.Events != 2 || p.Deliveries != 2) {
			t.Errorf("dropped %s with %d events and %d deliveries, want 2 and 2", p.Name, p.Events, p.Deliveries)
		}
	}
	wantDropped := []string{beforeRange(today.AddDate(0, 0, -9)).name}
	for d := -9; d <= -6; d++ {
		wantDropped = append(wantDropped, periodName(today.AddDate(0, 0, d)))
	}
	if !slices.Equal(dropped, wantDropped) {
		t.Errorf("dropped %v, want %v", dropped, wantDropped)
	}
	wantLive := map[string]map[store.DeliveryStatus]int64{"c": {store.StatusPending: 1}}
	if len(report.Waiting) != 1 || report.Waiting[0].Name != periodName(today.AddDate(0, 0, -5)) ||
		fmt.Sprint(report.Waiting[0].Live) != fmt.Sprint(wantLive) {
		t.Errorf("waiting = %+v, want %s with %v", report.Waiting, periodName(today.AddDate(0, 0, -5)), wantLive)
	}
	checkCountsTrue(t, s, "after the drop")
	for _, it := range []store.IngestItem{done, dead} {
		if _, err := s.GetEvent(ctx, it.Event.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetEvent(%s) after the drop: %v, want not found", it.Event.ProviderEventID, err)
		}
	}
	for _, it := range []store.IngestItem{live, kept} {
		if _, err := s.GetEvent(ctx, it.Event.ID); err != nil {
			t.Errorf("GetEvent(%s) after the drop: %v", it.Event.ProviderEventID, err)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM hookrelay.event_keys WHERE provider_event_id IN ('evt_done', 'evt_dead')`); n != 0 {
		t.Errorf("%d keys of the dropped events are left", n)
	}
	if n := count(t, s, `SELECT count(*) FROM hookrelay.signature_digests`); n != 0 {
		t.Errorf("%d signature digests of the dropped events are left", n)
	}
	again := partItem("evt_done", now, "a")
	ingestAll(t, s, store.IngestStored, again) // its key went with it

	finish(t, s, "c", now, store.StatusDone)
	report, err = s.MaintainPartitions(ctx, req)
	if err != nil {
		t.Fatalf("MaintainPartitions once done: %v", err)
	}
	if len(report.Dropped) != 1 || report.Dropped[0].Name != periodName(today.AddDate(0, 0, -5)) || len(report.Waiting) != 0 {
		t.Errorf("once its delivery is done: dropped %+v, waiting %+v", report.Dropped, report.Waiting)
	}
	checkCountsTrue(t, s, "after the second drop")
	if _, err := s.GetEvent(ctx, kept.Event.ID); err != nil {
		t.Errorf("GetEvent(evt_kept): %v", err)
	}

	// A drop whose process stopped between detaching the tables and
	// dropping them leaves them detached: the next pass drops them.
	last := periodName(today.AddDate(0, 0, 2))
	for _, table := range []string{"events", "deliveries", "attempts"} {
		if _, err := s.other.Exec(ctx, fmt.Sprintf("ALTER TABLE %s DETACH PARTITION %s", s.sql.SQL("hookrelay."+table), s.table(table, last))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.MaintainPartitions(ctx, req); err != nil {
		t.Fatalf("MaintainPartitions after a detach: %v", err)
	}
	if n := count(t, s, `SELECT count(*) FROM pg_class WHERE relname LIKE '%_`+last+`' AND relkind = 'r' AND NOT relispartition`); n != 0 {
		t.Errorf("%d detached tables of %s left", n, last)
	}
}

// TestPartitionsCreatedAhead checks that maintenance keeps partitions
// made through now + the period's lead, contiguous, whatever the pass.
func TestPartitionsCreatedAhead(t *testing.T) {
	t.Parallel()
	s := openPartitioned(t, store.PartitionsHourly)
	ctx := context.Background()
	now := time.Now()
	check := func(at time.Time) {
		t.Helper()
		ps, err := s.ListPartitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ps[len(ps)-1].Name != defaultPartition {
			t.Errorf("the last partition is %s, want the default one", ps[len(ps)-1].Name)
		}
		ranges := ps[:len(ps)-1]
		for i := 1; i < len(ranges); i++ {
			if !ranges[i].From.Equal(ranges[i-1].To) {
				t.Errorf("partitions %s and %s are not contiguous", ranges[i-1].Name, ranges[i].Name)
			}
		}
		if end := ranges[len(ranges)-1].To; end.Before(at.Add(store.PartitionsHourly.Lead())) {
			t.Errorf("at %v partitions end at %v, before the lead", at, end)
		}
	}
	check(now)
	for _, at := range []time.Time{now.Add(3 * time.Hour), now.Add(3 * time.Hour), now.Add(30 * time.Hour)} {
		if _, err := s.MaintainPartitions(ctx, store.PartitionRequest{Period: store.PartitionsHourly, Now: at}); err != nil {
			t.Fatalf("MaintainPartitions at %v: %v", at, err)
		}
		check(at)
	}
	// Daily from then on: the next day starts where the hours end.
	at := now.Add(31 * time.Hour)
	report, err := s.MaintainPartitions(ctx, store.PartitionRequest{Period: store.PartitionsDaily, Now: at})
	if err != nil || len(report.Created) == 0 {
		t.Fatalf("MaintainPartitions daily: %+v, %v", report.Created, err)
	}
	check(at)
}

// TestPartitionTakesRowsFromDefault stores an event of a time no
// partition covers yet, which the DEFAULT partition holds, then has
// maintenance reach it: the event moves to its period's partition with
// its delivery, and the counts stay as they were.
func TestPartitionTakesRowsFromDefault(t *testing.T) {
	t.Parallel()
	s := openPartitioned(t, store.PartitionsDaily)
	ctx := context.Background()
	later := time.Now().AddDate(0, 0, 10)
	it := partItem("evt_ahead", later, "billing")
	ingestAll(t, s, store.IngestStored, it)
	if got := partitionOf(t, s, it.Event.ID); got != defaultPartition {
		t.Fatalf("evt_ahead is in %s, want the default partition", got)
	}
	checkCountsTrue(t, s, "in the default partition")
	if _, err := s.MaintainPartitions(ctx, store.PartitionRequest{Period: store.PartitionsDaily, Now: later}); err != nil {
		t.Fatalf("MaintainPartitions: %v", err)
	}
	if got, want := partitionOf(t, s, it.Event.ID), periodName(store.PartitionsDaily.Start(later)); got != want {
		t.Errorf("evt_ahead is in %s, want %s", got, want)
	}
	if ds, err := s.EventDeliveries(ctx, it.Event.ID); err != nil || len(ds) != 1 {
		t.Errorf("EventDeliveries = %v, %v", ds, err)
	}
	checkCountsTrue(t, s, "moved")
	ingestAll(t, s, store.IngestDuplicate, partItem("evt_ahead", time.Now(), "billing"))
}
