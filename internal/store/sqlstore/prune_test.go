package sqlstore

import (
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestPruneBound(t *testing.T) {
	t.Parallel()
	early := time.Date(2026, time.March, 3, 9, 30, 15, 123_000_000, time.UTC)
	late := early.Add(time.Millisecond)
	const earlyID, lateID = "01KJSGHA6K0000000000000000", "01KJSGHA6M0000000000000000"
	for _, tc := range []struct {
		name    string
		req     store.PruneRequest
		bound   time.Time
		boundID string
		ok      bool
	}{
		{"done only", store.PruneRequest{DoneBefore: early, Limit: 1}, early, earlyID, true},
		{"dead only", store.PruneRequest{DeadBefore: early, Limit: 1}, early, earlyID, true},
		{"dead later", store.PruneRequest{DoneBefore: early, DeadBefore: late, Limit: 1}, late, lateID, true},
		{"done later", store.PruneRequest{DoneBefore: late, DeadBefore: early, Limit: 1}, late, lateID, true},
		{"before the epoch", store.PruneRequest{DoneBefore: time.Unix(-1, 0), Limit: 1}, time.Unix(-1, 0), AboveEveryID, true},
		{"no bound", store.PruneRequest{Limit: 1}, time.Time{}, "", false},
		{"no limit", store.PruneRequest{DoneBefore: early}, time.Time{}, "", false},
	} {
		bound, boundID, ok := PruneBound(tc.req)
		if !bound.Equal(tc.bound) || boundID != tc.boundID || ok != tc.ok {
			t.Errorf("%s: PruneBound = %v, %q, %t; want %v, %q, %t", tc.name, bound, boundID, ok, tc.bound, tc.boundID, tc.ok)
		}
	}
}
