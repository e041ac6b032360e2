package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/failure"
	"github.com/hookrelay/hookrelay/internal/store"
)

// CompletionRow is one completion as both drivers write it: Now and the
// attempt's AttemptedAt filled in, the snippet cut, and the columns an
// outcome sets.
type CompletionRow struct {
	store.Completion
	// Next is the delivery's new next_attempt_at; nil keeps it.
	Next *time.Time
	// Finished is the delivery's finished_at; nil leaves it unset.
	Finished *time.Time
	// Snippet is the attempt's response snippet, cut to 1 KiB, as stored:
	// sealed under KeyID, or plain when KeyID is nil; empty when the
	// attempt is not kept in attempts (KeepsAttempt).
	Snippet []byte
	KeyID   *string
	// Headers are the attempt's request and response headers, bounded
	// and sealed as Snippet is, or no bytes when it has none.
	Headers []byte
	// Repeat is set when an earlier completion of the batch names the
	// same delivery: it is not recorded, as its lease is then gone.
	Repeat bool
	// Kind is failure.Classify of the attempt's status code and error,
	// which become the delivery's last ones: its failure_kind, by which
	// the failure counts group a failed or dead delivery.
	Kind failure.Kind
}

// KeepsAttempt tells whether r's attempt is written to attempts: every
// attempt but the one that ends its delivery done, which the delivery's
// own row describes (its last_attempted_at, last_duration_ms and
// last_status_code; migration 0028). Most deliveries end done at their
// first attempt, and an attempt row of their own was a third of the
// database's work per delivery.
func (r CompletionRow) KeepsAttempt() bool { return r.Status != store.StatusDone }

// CompletionRows checks that every completion of cs sets an outcome and
// returns their rows, zero times taken as now. A failed delivery becomes
// due at its NextAttemptAt (Now when zero); a done, skipped or dead one is
// finished at Now. Snippets are sealed with p.
func CompletionRows(cs []store.Completion, now time.Time, p Payloads) ([]CompletionRow, error) {
	rows := make([]CompletionRow, len(cs))
	seen := make(map[int64]bool, len(cs))
	for i, c := range cs {
		if c.Now.IsZero() {
			c.Now = now
		}
		if c.Attempt.AttemptedAt.IsZero() {
			c.Attempt.AttemptedAt = c.Now
		}
		r := CompletionRow{Completion: c, Repeat: seen[c.DeliveryID], Kind: failure.Classify(c.Attempt.StatusCode, c.Attempt.Error)}
		if r.KeepsAttempt() {
			var err error
			if r.Snippet, r.KeyID, err = p.SealSnippet(c.DeliveryID, Snippet(c.Attempt.ResponseSnippet)); err != nil {
				return nil, err
			}
			if r.Headers, err = p.SealAttemptHeaders(c.DeliveryID, EncodeAttemptHeaders(c.Attempt)); err != nil {
				return nil, err
			}
		} else {
			r.Snippet, r.Headers = []byte{}, []byte{}
		}
		switch c.Status {
		case store.StatusFailed:
			next := c.Now
			if !c.NextAttemptAt.IsZero() {
				next = c.NextAttemptAt
			}
			r.Next = &next
		case store.StatusDone, store.StatusSkipped, store.StatusDead:
			r.Finished = &c.Now
		default:
			return nil, fmt.Errorf("complete delivery %d: status %q is not an outcome", c.DeliveryID, c.Status)
		}
		seen[c.DeliveryID] = true
		rows[i] = r
	}
	return rows, nil
}

// CompleteOne records one outcome with a driver's CompleteDeliveries, as
// CompleteDelivery does: an error wrapping store.ErrLeaseLost when the
// lease was lost.
func CompleteOne(ctx context.Context, c store.Completion, completeAll func(context.Context, []store.Completion) ([]bool, error)) error {
	recorded, err := completeAll(ctx, []store.Completion{c})
	switch {
	case err != nil:
		return err
	case !recorded[0]:
		return fmt.Errorf("complete delivery %d: %w", c.DeliveryID, store.ErrLeaseLost)
	}
	return nil
}

// WritesDeferred tells whether r's outcome may write its delivery's row:
// the delivery is deferred (store.Lease.Deferred) and r names its event
// and destination. One deferred that does not is left to the sweep.
func (r CompletionRow) WritesDeferred() bool {
	return r.Deferred && r.EventID != "" && r.Destination != ""
}

// DeferredIDs returns the ids of the deliveries among rows whose outcome
// may write their row (WritesDeferred).
func DeferredIDs(rows []CompletionRow) []int64 {
	var ids []int64
	for _, r := range rows {
		if r.WritesDeferred() {
			ids = append(ids, r.DeliveryID)
		}
	}
	return ids
}
