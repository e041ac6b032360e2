package sqlstore

import (
	"testing"
	"time"
)

func TestIDBounds(t *testing.T) {
	t.Parallel()
	ms := time.Date(2026, time.March, 3, 9, 30, 15, 123_000_000, time.UTC)
	for _, tc := range []struct {
		name       string
		at         time.Time
		from, upTo string // IDFrom, IDBefore
	}{
		{"on a millisecond", ms, "01KJSGHA6K0000000000000000", "01KJSGHA6K0000000000000000"},
		{"within a millisecond", ms.Add(time.Nanosecond), "01KJSGHA6K0000000000000000", "01KJSGHA6M0000000000000000"},
		{"at its end", ms.Add(time.Millisecond - time.Nanosecond), "01KJSGHA6K0000000000000000", "01KJSGHA6M0000000000000000"},
		{"the epoch", time.Unix(0, 0), "00000000000000000000000000", "00000000000000000000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, ok := IDFrom(tc.at)
			if !ok || from != tc.from {
				t.Errorf("IDFrom = %q, %t; want %q", from, ok, tc.from)
			}
			upTo, ok := IDBefore(tc.at)
			if !ok || upTo != tc.upTo {
				t.Errorf("IDBefore = %q, %t; want %q", upTo, ok, tc.upTo)
			}
		})
	}
	for _, at := range []time.Time{time.Unix(-1, 0), time.Date(10900, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if id, ok := IDFrom(at); ok {
			t.Errorf("IDFrom(%v) = %q, want no bound", at, id)
		}
		if id, ok := IDBefore(at); ok {
			t.Errorf("IDBefore(%v) = %q, want no bound", at, id)
		}
	}
}

func TestIDRange(t *testing.T) {
	t.Parallel()
	ms := time.Date(2026, time.March, 3, 9, 30, 15, 123_000_000, time.UTC)
	for _, tc := range []struct {
		name         string
		since, until time.Time
		from, before string
	}{
		{"bounded", ms, ms.Add(time.Nanosecond), "01KJSGHA6K0000000000000000", "01KJSGHA6M0000000000000000"},
		{"since before the epoch", time.Unix(-1, 0), ms, "", "01KJSGHA6K0000000000000000"},
		{"until past the ULID range", ms, time.Date(10900, 1, 1, 0, 0, 0, 0, time.UTC), "01KJSGHA6K0000000000000000", AboveEveryID},
	} {
		from, before := IDRange(tc.since, tc.until)
		if from != tc.from || before != tc.before {
			t.Errorf("%s: IDRange = %q, %q; want %q, %q", tc.name, from, before, tc.from, tc.before)
		}
	}
}
