package postgres

import (
	"crypto/rand"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/store"
)

// eventID returns an id as the receiver makes it for an event received at
// t: the ULID of its millisecond, with random entropy, or with the
// largest entropy when last.
func eventID(t *testing.T, at time.Time, last bool) string {
	t.Helper()
	entropy := rand.Reader
	if last {
		id, err := ulid.New(ulid.Timestamp(at), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := id.SetEntropy([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}); err != nil {
			t.Fatal(err)
		}
		return id.String()
	}
	id, err := ulid.New(ulid.Timestamp(at), entropy)
	if err != nil {
		t.Fatal(err)
	}
	return id.String()
}

// TestPeriodRanges checks the ranges of daily and hourly partitions: a
// period starts on its UTC day or hour, whatever the zone of the time it
// is asked for, and its range holds the id of every event received from
// its first millisecond to its last, and no other.
func TestPeriodRanges(t *testing.T) {
	t.Parallel()
	ist := time.FixedZone("IST", 5*3600+1800)
	for _, tc := range []struct {
		period     store.PartitionPeriod
		at         time.Time
		start, end time.Time
		name       string
	}{
		{store.PartitionsDaily, time.Date(2026, 1, 15, 13, 45, 10, 0, time.UTC),
			time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC), "p20260115_0000"},
		{store.PartitionsDaily, time.Date(2026, 1, 16, 2, 0, 0, 0, ist), // 20:30 UTC the day before
			time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC), "p20260115_0000"},
		{store.PartitionsDaily, time.Date(2024, 2, 28, 23, 59, 59, 999e6, time.UTC), // a leap year's end of February
			time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "p20240228_0000"},
		{store.PartitionsHourly, time.Date(2026, 1, 15, 13, 45, 10, 0, time.UTC),
			time.Date(2026, 1, 15, 13, 0, 0, 0, time.UTC), time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC), "p20260115_1300"},
		{store.PartitionsHourly, time.Date(2026, 1, 15, 23, 0, 0, 0, time.UTC),
			time.Date(2026, 1, 15, 23, 0, 0, 0, time.UTC), time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC), "p20260115_2300"},
		{store.PartitionsHourly, time.Date(2026, 1, 15, 19, 10, 0, 0, ist), // 13:40 UTC
			time.Date(2026, 1, 15, 13, 0, 0, 0, time.UTC), time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC), "p20260115_1300"},
	} {
		start := tc.period.Start(tc.at)
		if !start.Equal(tc.start) || start.Location() != time.UTC {
			t.Errorf("%s Start(%v) = %v, want %v", tc.period, tc.at, start, tc.start)
			continue
		}
		r := periodRange(tc.period, start)
		if r.name != tc.name {
			t.Errorf("%s period of %v: name %s, want %s", tc.period, tc.at, r.name, tc.name)
		}
		if got := idTime(r.from); !got.Equal(tc.start) {
			t.Errorf("%s period of %v: from is the id of %v, want %v", tc.period, tc.at, got, tc.start)
		}
		if got := idTime(r.to); !got.Equal(tc.end) {
			t.Errorf("%s period of %v: to is the id of %v, want %v", tc.period, tc.at, got, tc.end)
		}
		for _, c := range []struct {
			at   time.Time
			last bool
			in   bool
		}{
			{tc.start, false, true},
			{tc.start, true, true},
			{tc.end.Add(-time.Millisecond), true, true},
			{tc.start.Add(-time.Millisecond), true, false},
			{tc.end, false, false},
		} {
			id := eventID(t, c.at, c.last)
			if in := r.from <= id && id < r.to; in != c.in {
				t.Errorf("%s period of %v: id %s of %v in [%s, %s) = %v, want %v", tc.period, tc.at, id, c.at, r.from, r.to, in, c.in)
			}
		}
		got, ok := parseBound(r.name, "FOR VALUES FROM ("+literal(r.from)+") TO ("+literal(r.to)+")")
		if !ok || got != r {
			t.Errorf("parseBound(values of %+v) = %+v, %v", r, got, ok)
		}
	}
}

// TestBeforeRange checks the range of the partition a conversion makes of
// the rows stored: everything below the bound, MINVALUE in its bound.
func TestBeforeRange(t *testing.T) {
	t.Parallel()
	bound := time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC)
	r := beforeRange(bound)
	if r.name != "before_20260116_0000" || r.from != "" || !idTime(r.to).Equal(bound) {
		t.Errorf("beforeRange(%v) = %+v", bound, r)
	}
	if got, want := r.values(), "FOR VALUES FROM (MINVALUE) TO ('"+r.to+"')"; got != want {
		t.Errorf("values = %s, want %s", got, want)
	}
	if got, ok := parseBound(r.name, r.values()); !ok || got != r {
		t.Errorf("parseBound(%s) = %+v, %v", r.values(), got, ok)
	}
	if _, ok := parseBound("default", "DEFAULT"); ok {
		t.Error("parseBound(DEFAULT) is a range")
	}
}

// TestWanted checks which ranges maintenance creates: the periods from
// now's to its lead, those below the latest range skipped, and one that
// straddles it begun at it, so that ranges never overlap when the period
// changes.
func TestWanted(t *testing.T) {
	t.Parallel()
	day := func(d, h int) time.Time { return time.Date(2026, 1, d, h, 0, 0, 0, time.UTC) }
	now := day(15, 10)
	names := func(rs []partitionRange) []string {
		var ns []string
		for _, r := range rs {
			ns = append(ns, r.name)
		}
		return ns
	}
	for _, tc := range []struct {
		what   string
		period store.PartitionPeriod
		high   string
		want   []string
	}{
		{"daily, none yet", store.PartitionsDaily, "", []string{"p20260115_0000", "p20260116_0000", "p20260117_0000"}},
		{"daily, today's made", store.PartitionsDaily, idAt(day(16, 0)), []string{"p20260116_0000", "p20260117_0000"}},
		{"daily, all made", store.PartitionsDaily, idAt(day(18, 0)), nil},
		{"hourly", store.PartitionsHourly, idAt(day(15, 14)),
			[]string{"p20260115_1400", "p20260115_1500", "p20260115_1600"}},
		{"daily after hourly ones", store.PartitionsDaily, idAt(day(16, 7)),
			[]string{"p20260116_0700", "p20260117_0000"}},
	} {
		rs := wanted(tc.period, now, tc.high, time.Time{})
		if got := names(rs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: wanted = %v, want %v", tc.what, got, tc.want)
		}
		for i, r := range rs {
			if r.from >= r.to || (i > 0 && rs[i-1].to != r.from) || (tc.high != "" && r.from < tc.high) {
				t.Errorf("%s: range %d %+v overlaps or leaves a gap", tc.what, i, r)
			}
		}
	}
}
