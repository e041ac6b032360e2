package delivery

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// PullRequest asks for due deliveries of one pull destination.
type PullRequest struct {
	// Destination is the pull destination, as configured now.
	Destination config.Destination
	// Max is the most deliveries to claim.
	Max int
	// MaxBody is the largest body the destination's sources accept: the
	// most one claimed delivery can carry, which the byte budgets count.
	MaxBody int64
	// Wait is how long to wait for a delivery to come due when none is.
	Wait time.Duration
	// Lease is how long the claimed deliveries are held.
	Lease time.Duration
	// Closing, when closed, ends the wait with nothing claimed: the server
	// is shutting down.
	Closing <-chan struct{}
}

// Pulled is what one claim handed out. Its bodies are counted in the
// process's budget of claimed bodies until Sent or Done gives them back.
type Pulled struct {
	Deliveries []PulledDelivery
	p          *Puller
	held       int64 // bytes of the bodies not yet sent
}

// PulledDelivery is one claimed delivery as its consumer receives it.
type PulledDelivery struct {
	Claim store.Claim
	// Headers are exactly those a push to the destination would carry,
	// signed with its secret.
	Headers http.Header
	// LeaseToken is what the consumer sends back with its outcome.
	LeaseToken string
}

// Sent tells that delivery i's body has been written out: its bytes go
// back to the budget and the batch lets go of it.
func (b *Pulled) Sent(i int) {
	n := int64(len(b.Deliveries[i].Claim.Event.Body))
	b.Deliveries[i].Claim.Event.Body = nil
	b.held -= n
	b.p.budget.give(n)
}

// Done gives back the budget the bodies not sent still hold. Call it once
// the answer is written or abandoned.
func (b *Pulled) Done() {
	b.p.budget.give(b.held)
	b.held = 0
}

// Release hands every delivery of b back to the queue unattempted, for a
// consumer that cannot have read them; one that cannot be handed back
// returns when its lease runs out.
func (b *Pulled) Release() {
	if len(b.Deliveries) == 0 {
		return
	}
	claims := make([]store.Claim, len(b.Deliveries))
	for i, d := range b.Deliveries {
		claims[i] = d.Claim
	}
	b.p.release(claims)
}

// Claim leases up to req.Max due deliveries of a pull destination, waiting
// up to req.Wait for one to come due, within the byte budgets of claimed
// bodies, and hands each over with the headers a push would carry. A
// caller that goes away, or req.Closing, ends the wait with nothing
// claimed. The caller must call Done on the answer.
func (p *Puller) Claim(ctx context.Context, req PullRequest) (*Pulled, error) {
	claims, held, err := p.claimWaiting(ctx, req)
	b := &Pulled{p: p, held: held}
	if err != nil {
		b.Done()
		return nil, fmt.Errorf("claim %s: %w", req.Destination.Name, err)
	}
	if err := b.handOver(req.Destination, claims); err != nil {
		p.release(claims)
		b.Done()
		return nil, fmt.Errorf("claim %s: %w", req.Destination.Name, err)
	}
	return b, nil
}

// handOver turns claims into what the consumer receives: the headers are
// built and signed exactly as a push to the destination would be.
func (b *Pulled) handOver(dest config.Destination, claims []store.Claim) error {
	b.Deliveries = make([]PulledDelivery, 0, len(claims))
	target := Target{Secret: dest.Secret, ForwardHeaders: dest.ForwardHeaders}
	now := b.p.now()
	for _, c := range claims {
		h, err := target.Headers(c.Event, c.Delivery, now)
		if err != nil {
			return err
		}
		b.Deliveries = append(b.Deliveries, PulledDelivery{Claim: c, Headers: h, LeaseToken: leaseFor(dest.Name, c).Token()})
	}
	return nil
}

// claimWaiting claims, and while nothing is due and the wait has not
// passed, claims again whenever the destination is woken or claimPoll
// passes. held is how many bytes of the budget the claims' bodies keep
// (see claimWithin).
func (p *Puller) claimWaiting(ctx context.Context, req PullRequest) (claims []store.Claim, held int64, err error) {
	deadline := time.NewTimer(req.Wait)
	defer deadline.Stop()
	poll := time.NewTicker(claimPoll)
	defer poll.Stop()
	roomCtx, cancel := context.WithTimeout(ctx, max(req.Wait, claimBudgetWait))
	defer cancel()
	for {
		woken := p.waiting.wait(req.Destination.Name)
		claims, held, err = p.claimWithin(ctx, roomCtx, req)
		if err != nil || len(claims) > 0 || req.Wait <= 0 {
			return claims, held, err
		}
		select {
		case <-ctx.Done():
			return nil, 0, nil
		case <-req.Closing:
			return nil, 0, nil
		case <-deadline.C:
			return nil, 0, nil
		case <-woken:
		case <-poll.C:
		}
	}
}

// claimWithin claims up to req.Max deliveries within the byte budgets, in
// rounds: each takes room for its bodies from the budget, asks the store
// for no more rows than that room holds at req.MaxBody bytes each, and
// gives back what the bodies did not use; the next round asks for what the
// answer's budget (claimAnswerBytes) has left, until req.Max, a round that
// drains the queue, or a budget runs out. The first round waits for room
// until roomCtx ends, and claims nothing if it ends first; later rounds do
// not wait. held is the bytes of the bodies claimed, still taken from the
// budget.
func (p *Puller) claimWithin(ctx, roomCtx context.Context, req PullRequest) (claims []store.Claim, held int64, err error) {
	name, perBody := req.Destination.Name, req.MaxBody
	for len(claims) < req.Max {
		rows := min(req.Max-len(claims), claimRows(req.Max, perBody, held))
		if rows < 1 && len(claims) > 0 {
			break
		}
		var room int64
		if len(claims) == 0 {
			room, err = p.budget.take(roomCtx, int64(max(rows, 1))*perBody)
			if err != nil {
				p.logger.Warn("claim found no room in the claims' byte budget; answering with no delivery",
					keyDestination, name, "in_flight_bytes", p.budget.inUse())
				return nil, 0, nil
			}
		} else if room = p.budget.tryTake(int64(rows) * perBody); room < perBody {
			p.budget.give(room)
			break
		}
		rows = max(1, int(room/perBody))
		got, err := p.queue.ClaimDeliveries(ctx, store.ClaimRequest{
			Destination: name, Max: rows, Lease: req.Lease, Now: p.now(), MaxAttempts: req.Destination.MaxAttempts,
		})
		got, dead := store.SplitLost(got)
		p.buried(name, dead)
		n := bodyBytes(got)
		if n > room {
			// Bodies stored under a larger max_body than the config's now.
			p.budget.force(n - room)
		} else {
			p.budget.give(room - n)
		}
		if err != nil {
			if len(claims) == 0 {
				return nil, 0, err
			}
			break // answer with what earlier rounds claimed
		}
		claims, held = append(claims, got...), held+n
		if len(got) < rows {
			break
		}
	}
	return claims, held, nil
}

// bodyBytes returns the bytes of the claims' bodies.
func bodyBytes(claims []store.Claim) int64 {
	var n int64
	for _, c := range claims {
		n += int64(len(c.Event.Body))
	}
	return n
}

// release hands claims back to the queue unattempted.
func (p *Puller) release(claims []store.Claim) {
	if len(claims) == 0 {
		return
	}
	if err := releaseClaims(p.queue, claims); err != nil {
		p.logger.Warn("release claimed deliveries; they return when their lease runs out", keyError, err)
	}
}
