package sqlstore

import (
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// WithinRow checks that c, completed by a CompleteWithin callback, is done
// or skipped, and returns its row as CompletionRows would.
func WithinRow(c store.Completion, now time.Time, p Payloads) (CompletionRow, error) {
	if c.Status != store.StatusDone && c.Status != store.StatusSkipped {
		return CompletionRow{}, fmt.Errorf("complete delivery %d within: status %q is not done or skipped", c.DeliveryID, c.Status)
	}
	rows, err := CompletionRows([]store.Completion{c}, now, p)
	if err != nil {
		return CompletionRow{}, err
	}
	return rows[0], nil
}
