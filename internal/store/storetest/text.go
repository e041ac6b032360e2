package storetest

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testTextValuesKeptAlike ingests events whose derived text values no
// PostgreSQL text column takes as they are — NUL, invalid UTF-8, an
// ordering key too long for an index entry — and checks that every driver
// stores them in the same form (store.CleanText, store.OrderingKey).
func testTextValuesKeptAlike(t *testing.T, s store.DB) {
	odd := newEvent("stripe", "evt_text_odd")
	odd.Type = "invoice\x00.pa\xffid"
	odd.ContentType = "application/json; charset=\xfe\x00x"
	odd.Headers = map[string][]string{"X-Odd": {"a\xffb", "c\x00d"}}
	want := odd
	want.Type = "invoice.pa\uFFFDid"
	want.ContentType = "application/json; charset=\uFFFDx"
	want.Headers = map[string][]string{"X-Odd": {"a\uFFFDb", "c\x00d"}}

	long := newEvent("stripe", "evt_text_long")
	long.Type = strings.Repeat("t", store.MaxIdentityLen+5)
	long.ContentType = "text/plain; x=" + strings.Repeat("c", store.MaxContentTypeLen)
	wantLong := long
	wantLong.Type = long.Type[:store.MaxIdentityLen]
	wantLong.ContentType = long.ContentType[:store.MaxContentTypeLen]

	checkInserted(t, ingest(t, s, item(odd), item(long)), true, true)
	checkEvent(t, getEvent(t, s, odd.ID), want)
	checkEvent(t, getEvent(t, s, long.ID), wantLong)
	if _, err := s.EventByProviderID(context.Background(), "stripe", "evt_text_odd"); err != nil {
		t.Errorf("EventByProviderID of the odd event: %v", err)
	}
}

// testIngestRefusesUnkeepableIDs checks that a provider event id or source
// that cannot be kept as it is fails the batch with ErrInvalid, writing
// nothing, on every driver: changing it could merge two events into one.
func testIngestRefusesUnkeepableIDs(t *testing.T, s store.DB) {
	for _, tc := range []struct{ name, source, id string }{
		{"invalid UTF-8 id", "stripe", "evt_X_\xfe"},
		{"NUL in id", "stripe", "evt_\x00"},
		{"id too long", "stripe", strings.Repeat("i", store.MaxIdentityLen+1)},
		{"invalid UTF-8 source", "str\xffipe", "evt_ok"},
	} {
		fine := newEvent("stripe", "evt_fine_"+tc.name)
		bad := newEvent(tc.source, tc.id)
		_, err := s.Ingest(context.Background(), []store.IngestItem{item(fine, "billing"), item(bad, "billing")})
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: Ingest error %v, want ErrInvalid", tc.name, err)
		}
		checkNoEvent(t, s, fine.ID)
		checkNoEvent(t, s, bad.ID)
	}
}

// testOrderingKeysOfAnyValue checks that ordering keys of any length and
// bytes are stored, are equal exactly when their values are, and order
// their deliveries as any key does.
func testOrderingKeysOfAnyValue(t *testing.T, s store.DB) {
	long := hex.EncodeToString(randomBytes(1500, 7)) // 3000 bytes PostgreSQL cannot compress
	keys := []string{long, long + "x", "a\x00b", "a\x00c", "a\xfe", "a\xff", "sha256:" + strings.Repeat("0", 64)}
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i-100) * time.Second) }
	var firsts, seconds []store.Event
	var items []store.IngestItem
	for i, k := range keys {
		first := orderedEvent("K1_"+string(rune('a'+i)), at(i), baseTime)
		second := orderedEvent("K2_"+string(rune('a'+i)), at(len(keys)+i), baseTime)
		firsts, seconds = append(firsts, first), append(seconds, second)
		items = append(items, keyed(first, "billing", k), keyed(second, "billing", k))
	}
	checkInserted(t, ingest(t, s, items...), repeatBool(true, len(items))...)
	for i, k := range keys {
		d := deliveries(t, s, firsts[i].ID)
		if len(d) != 1 || d[0].OrderingKey != store.OrderingKey(k) || !store.StorableText(d[0].OrderingKey, store.MaxOrderingKeyLen) {
			t.Errorf("key %.20q stored as %.80q, want %q", k, d[0].OrderingKey, store.OrderingKey(k))
		}
	}
	now := baseTime.Add(time.Minute)
	// Every key's head is claimable, and only its head: the keys are
	// distinct.
	head := claim(t, s, "billing", 100, now)
	checkClaimed(t, head, firsts...)
	for _, c := range head {
		complete(t, s, outcome(c, store.StatusDone, now))
	}
	checkClaimed(t, claim(t, s, "billing", 100, now), seconds...)
}

func repeatBool(v bool, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// testBackfillOrderingKeysKeptAlike checks that a backfilled delivery
// stores its ordering key in the form ingest does.
func testBackfillOrderingKeysKeptAlike(t *testing.T, s store.DB) {
	e := newEvent("stripe", "evt_backfill_key")
	ingest(t, s, item(e))
	long := strings.Repeat("b", 3000) + "\x00\xff"
	n, err := s.CreateDeliveries(context.Background(), []store.BackfillDelivery{{EventID: e.ID, Destination: "late", OrderingKey: long}}, baseTime)
	if err != nil || n != 1 {
		t.Fatalf("CreateDeliveries: %d, %v", n, err)
	}
	d := deliveries(t, s, e.ID)
	if len(d) != 1 || d[0].OrderingKey != store.OrderingKey(long) {
		t.Errorf("backfilled key stored as %v, want %q", d, store.OrderingKey(long))
	}
}
