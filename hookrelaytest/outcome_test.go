package hookrelaytest

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

// TestOutcomesAreStatuses checks that an Outcome other than Snoozed reads
// as the delivery's status does in listings: Run makes Failed and Dead
// of the status the relay decides.
func TestOutcomesAreStatuses(t *testing.T) {
	t.Parallel()
	for o, s := range map[Outcome]store.DeliveryStatus{
		Done: store.StatusDone, Skipped: store.StatusSkipped, Failed: store.StatusFailed, Dead: store.StatusDead,
	} {
		if string(o) != string(s) {
			t.Errorf("outcome %q, status %q", o, s)
		}
	}
}
