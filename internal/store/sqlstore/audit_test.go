package sqlstore

import (
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestAuditJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, time.March, 3, 9, 0, 0, 500, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name, got, want string
	}{
		{"empty filter", AuditFilter(store.EventFilter{}), `{}`},
		{"filter", AuditFilter(store.EventFilter{
			IDs: []string{"a"}, Source: "stripe", Type: "invoice.*", Destination: "billing",
			Status: store.StatusDead, Since: at, Until: at.Add(time.Hour),
		}), `{"ids":["a"],"source":"stripe","type":"invoice.*","destination":"billing","status":"dead",` +
			`"since":"2026-03-03T08:00:00.0000005Z","until":"2026-03-03T09:00:00.0000005Z"}`},
		{"backfill", AuditBackfill("late", at, at.Add(time.Hour)),
			`{"destination":"late","since":"2026-03-03T08:00:00.0000005Z","until":"2026-03-03T09:00:00.0000005Z"}`},
		{"backfill without window", AuditBackfill("late", time.Time{}, time.Time{}), `{"destination":"late"}`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}
