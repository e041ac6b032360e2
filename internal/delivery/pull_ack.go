package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// PullOutcome is what a pull consumer reports of one claimed delivery.
type PullOutcome struct {
	// Status is done, skipped or failed.
	Status store.DeliveryStatus
	// StatusCode is the consumer's local response code, 0 when none.
	StatusCode int
	// Error describes a failure.
	Error string
	// ResponseSnippet is the start of the local response's body; the
	// store keeps at most 1 KiB of it.
	ResponseSnippet string
}

// Ack records the outcome of the delivery l leases, of the pull
// destination dest. A failure follows the destination's retry policy, to
// its next attempt or to dead; a dead delivery is reported as a pushed one
// is (log, metric, alert). It returns the delivery's new status and, for a
// failed one, when it is due again. It returns ErrNoLease when l names no
// delivery, and store.ErrLeaseLost when the lease ran out.
func (p *Puller) Ack(ctx context.Context, dest config.Destination, l Lease, o PullOutcome) (store.DeliveryStatus, time.Time, error) {
	held, err := p.leased(ctx, l)
	if err != nil {
		return "", time.Time{}, err
	}
	if held.Status != store.StatusProcessing {
		return "", time.Time{}, fmt.Errorf("delivery %d is %s: %w", l.DeliveryID, held.Status, store.ErrLeaseLost)
	}
	now := p.now()
	c := store.Completion{
		DeliveryID: l.DeliveryID,
		EventID:    held.EventID,
		LeaseToken: l.storeToken,
		Status:     o.Status,
		Attempt: store.Attempt{
			DeliveryID:      l.DeliveryID,
			AttemptedAt:     held.UpdatedAt,
			Duration:        max(0, now.Sub(held.UpdatedAt)),
			StatusCode:      o.StatusCode,
			Error:           ShortError(o.Error),
			ResponseSnippet: o.ResponseSnippet,
		},
		Now: now,
	}
	if c.Status == store.StatusFailed {
		c.Status, c.NextAttemptAt = PolicyFor(dest).Decide(held.Attempts, 0, now)
	}
	if err := p.queue.CompleteDelivery(ctx, c); err != nil {
		if !errors.Is(err, store.ErrLeaseLost) {
			err = fmt.Errorf("complete delivery %d: %w", l.DeliveryID, err)
		}
		return "", time.Time{}, err
	}
	p.metrics.recorded(dest.Name, c.Status)
	if c.Status == store.StatusFailed || c.Status == store.StatusDead {
		p.attemptFailed(held, c)
	}
	return c.Status, c.NextAttemptAt, nil
}

// Release hands the delivery l leases back unattempted, due now, as a
// consumer that stops does with what it still holds, and wakes the claims
// waiting on its destination. It returns ErrNoLease when l names no
// delivery.
func (p *Puller) Release(ctx context.Context, l Lease) error {
	if _, err := p.leased(ctx, l); err != nil {
		return err
	}
	if err := p.queue.ReleaseDeliveries(ctx, []store.Release{{DeliveryID: l.DeliveryID, LeaseToken: l.storeToken}}); err != nil {
		return fmt.Errorf("release delivery %d: %w", l.DeliveryID, err)
	}
	p.Wake(l.Destination)
	return nil
}
