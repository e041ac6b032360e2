package sqlstore

import (
	"maps"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestAddCount(t *testing.T) {
	t.Parallel()
	dests := map[string]store.DestinationStats{}
	AddCount(dests, "billing", store.StatusDone, 3)
	AddCount(dests, "billing", store.StatusDead, 1)
	AddCount(dests, "crm", store.StatusPending, 2)
	AddCount(dests, "crm", store.StatusProcessing, 2)
	AddCount(dests, "crm", store.StatusProcessing, 1) // a second row adds to the first
	want := map[string]map[store.DeliveryStatus]int64{
		"billing": {store.StatusPending: 0, store.StatusProcessing: 0, store.StatusFailed: 0, store.StatusDone: 3, store.StatusSkipped: 0, store.StatusDead: 1, store.StatusPurged: 0},
		"crm":     {store.StatusPending: 2, store.StatusProcessing: 3, store.StatusFailed: 0, store.StatusDone: 0, store.StatusSkipped: 0, store.StatusDead: 0, store.StatusPurged: 0},
	}
	if len(dests) != len(want) {
		t.Fatalf("destinations = %v, want %v", dests, want)
	}
	for dest, counts := range want {
		if got := dests[dest].Counts; !maps.Equal(got, counts) {
			t.Errorf("%s counts = %v, want %v", dest, got, counts)
		}
	}
}
