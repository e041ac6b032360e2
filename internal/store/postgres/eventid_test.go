package postgres

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
		from, upTo string // idFrom, idBefore
	}{
		{"on a millisecond", ms, "01KJSGHA6K0000000000000000", "01KJSGHA6K0000000000000000"},
		{"within a millisecond", ms.Add(time.Nanosecond), "01KJSGHA6K0000000000000000", "01KJSGHA6M0000000000000000"},
		{"at its end", ms.Add(time.Millisecond - time.Nanosecond), "01KJSGHA6K0000000000000000", "01KJSGHA6M0000000000000000"},
		{"the epoch", time.Unix(0, 0), "00000000000000000000000000", "00000000000000000000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, ok := idFrom(tc.at)
			if !ok || from != tc.from {
				t.Errorf("idFrom = %q, %t; want %q", from, ok, tc.from)
			}
			upTo, ok := idBefore(tc.at)
			if !ok || upTo != tc.upTo {
				t.Errorf("idBefore = %q, %t; want %q", upTo, ok, tc.upTo)
			}
		})
	}
	for _, at := range []time.Time{time.Unix(-1, 0), time.Date(10900, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if id, ok := idFrom(at); ok {
			t.Errorf("idFrom(%v) = %q, want no bound", at, id)
		}
		if id, ok := idBefore(at); ok {
			t.Errorf("idBefore(%v) = %q, want no bound", at, id)
		}
	}
}
