package delivery

import "github.com/hookrelay/hookrelay/internal/store"

// A claim finds the deliveries whose lease ran out before their outcome was
// recorded — their worker lost with its process, or never answering in
// time — and counts each lease as an attempt (store.ClaimRequest's
// MaxAttempts): below the destination's max attempts the delivery is
// claimed again; at it, the claim marks it dead rather than hand it out
// again, so that an event whose handling takes the process down with it
// ends in the dead letters instead of a crash loop. The claimers report
// those dead letters here.

// buried reports the deliveries of destination a claim found lost with
// their attempts run out, and marked dead, as a dead attempt is reported:
// the outcome's metric, the log line, the alert.
func (e *Engine) buried(destination string, dead []store.Claim) {
	for _, c := range dead {
		e.metrics.recorded(destination, store.StatusDead)
		e.deadLetter(c, Result{Outcome: store.StatusFailed, Error: store.LostAttemptError})
	}
}

// claimedOrBuried returns the deliveries a claim leased, and reports those
// it marked dead (see buried).
func (e *Engine) claimedOrBuried(destination string, claims []store.Claim) []store.Claim {
	claimed, dead := store.SplitLost(claims)
	e.buried(destination, dead)
	return claimed
}

// buried reports the deliveries of a pull destination a claim found lost
// with their attempts run out, as the engine's buried does: a consumer
// that claimed them and vanished, or never acknowledged them in time.
func (p *Puller) buried(destination string, dead []store.Claim) {
	if len(dead) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock() // enqueue never blocks
	for _, c := range dead {
		d, e := c.Delivery, c.Event
		p.metrics.recorded(destination, store.StatusDead)
		reportDead(p.logger, p.metrics, p.alerts, p.watch, Alert{
			DeliveryID: d.ID, EventID: d.EventID, ProviderEventID: e.ProviderEventID, Source: e.Source, Type: e.Type,
			Destination: d.Destination, Attempts: d.Attempts, LastError: store.LostAttemptError,
		})
	}
}
