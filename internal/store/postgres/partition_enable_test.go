package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// snapshot is what a store shows of its events: each event's listing,
// row, deliveries and attempts, and the delivery counts.
func snapshot(t *testing.T, s *Store, ids []string) string {
	t.Helper()
	ctx := context.Background()
	out := ""
	events, _, err := s.ListEvents(ctx, store.ListRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out += fmt.Sprintf("list %+v\n", events)
	for _, id := range ids {
		e, err := s.GetEvent(ctx, id)
		if err != nil {
			t.Fatalf("GetEvent(%s): %v", id, err)
		}
		ds, err := s.EventDeliveries(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		out += fmt.Sprintf("event %+v\ndeliveries %+v\n", e, ds)
		for _, d := range ds {
			as, err := s.DeliveryAttempts(ctx, d.ID)
			if err != nil {
				t.Fatal(err)
			}
			out += fmt.Sprintf("attempts of %d %+v\n", d.ID, as)
		}
	}
	stats, err := s.Stats(ctx, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return out + fmt.Sprintf("counts %v\n", stats.Destinations)
}

// TestEnablePartitionsConverts converts an event log stored unpartitioned,
// with attempts written before migration 0038: every event, delivery,
// attempt and count reads as before; the table's indexes become the
// partitions of the parents' without being built again; and ingest goes
// on, into the partitions of their periods, refusing a provider id
// stored before.
func TestEnablePartitionsConverts(t *testing.T) {
	t.Parallel()
	s := openPlain(t)
	ctx := context.Background()
	now := time.Now()
	today := store.PartitionsDaily.Start(now)
	var ids []string
	for d := -3; d <= 0; d++ {
		at := today.AddDate(0, 0, d).Add(time.Minute)
		items := []store.IngestItem{partItem(fmt.Sprintf("evt_a%d", -d), at, "a"), partItem(fmt.Sprintf("evt_b%d", -d), at, "b"),
			partItem(fmt.Sprintf("evt_c%d", -d), at, "c")}
		items[2].SignatureDigest = []byte(fmt.Sprintf("digest %d", d))
		ingestAll(t, s, store.IngestStored, items...)
		for _, it := range items {
			ids = append(ids, it.Event.ID)
		}
	}
	finish(t, s, "a", now, store.StatusDone)
	finish(t, s, "b", now, store.StatusFailed)
	finish(t, s, "b", now.Add(time.Hour), store.StatusDead)
	if _, err := s.other.Exec(ctx, s.sql.SQL(`UPDATE hookrelay.attempts SET event_id = NULL`)); err != nil {
		t.Fatal(err) // as written before migration 0038
	}
	before := snapshot(t, s, ids)
	indexes := count(t, s, `SELECT count(*) FROM pg_index WHERE indrelid IN
		(to_regclass('hookrelay.events'), to_regclass('hookrelay.deliveries'), to_regclass('hookrelay.attempts'))`)
	maxDelivery := count(t, s, `SELECT max(id) FROM hookrelay.deliveries`)

	var steps []string
	if err := s.EnablePartitions(ctx, store.PartitionsDaily, now, func(step string) { steps = append(steps, step) }); err != nil {
		t.Fatalf("EnablePartitions: %v (after %v)", err, steps)
	}
	if partitioned, err := s.Partitioned(ctx); err != nil || !partitioned {
		t.Fatalf("Partitioned = %v, %v", partitioned, err)
	}
	if err := s.EnablePartitions(ctx, store.PartitionsDaily, now, nil); err == nil {
		t.Error("EnablePartitions twice succeeded")
	}
	if after := snapshot(t, s, ids); after != before {
		b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Errorf("the event log reads otherwise once partitioned:\nbefore %s\nafter  %s", b[i], a[i])
			}
		}
	}
	checkCountsTrue(t, s, "converted")

	legacy := beforeRange(today.AddDate(0, 0, 1)).name
	q := func(table string) string { return fmt.Sprintf("to_regclass('hookrelay.%s_%s')", table, legacy) }
	if n := count(t, s, `SELECT count(*) FROM pg_index WHERE indrelid IN (`+q("events")+`, `+q("deliveries")+`, `+q("attempts")+`)`); n != indexes {
		t.Errorf("the partition of the rows stored has %d indexes, the tables had %d", n, indexes)
	}
	// Every index but the primary keys of deliveries and attempts and the
	// events' (source, provider_event_id) is a partition of the parent's.
	if n := count(t, s, `SELECT count(*) FROM pg_inherits i JOIN pg_index x ON x.indexrelid = i.inhrelid
		WHERE x.indrelid IN (`+q("events")+`, `+q("deliveries")+`, `+q("attempts")+`)`); n != indexes-3 {
		t.Errorf("%d of the %d indexes are attached to the parents' ones, want all but 3", n, indexes)
	}

	ingestAll(t, s, store.IngestDuplicate, partItem("evt_a3", now, "a"))
	next := partItem("evt_next", today.AddDate(0, 0, 1).Add(time.Hour), "a")
	ingestAll(t, s, store.IngestStored, next)
	if got := partitionOf(t, s, next.Event.ID); got != periodName(today.AddDate(0, 0, 1)) {
		t.Errorf("evt_next is in %s", got)
	}
	ds, err := s.EventDeliveries(ctx, next.Event.ID)
	if err != nil || len(ds) != 1 || ds[0].ID <= maxDelivery {
		t.Errorf("the new event's deliveries: %+v, %v; want one whose id is above %d", ds, err, maxDelivery)
	}
	res, err := s.Replay(ctx, store.ReplayRequest{Filter: store.EventFilter{Destination: "b"}, Actor: "ops", Now: now})
	if err != nil || res.Rearmed != 4 {
		t.Errorf("Replay = %+v, %v; want 4 re-armed", res, err)
	}
	finish(t, s, "b", now.Add(2*time.Hour), store.StatusDone)
	checkCountsTrue(t, s, "after a replay")
	if n := count(t, s, `SELECT count(*) FROM hookrelay.attempts WHERE event_id IS NULL`); n != 0 {
		t.Errorf("%d attempts without an event id", n)
	}
}
