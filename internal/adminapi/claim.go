package adminapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Bounds of a claim.
const (
	// ClaimLease is how long a claimed delivery is held before it returns
	// to the queue by itself, unless the claim asks for another lease
	// between MinClaimLease and MaxClaimLease.
	ClaimLease    = 60 * time.Second
	MinClaimLease = 20 * time.Second
	MaxClaimLease = 10 * time.Minute
	maxClaimWait  = 60 * time.Second
	defaultMax    = 10
	maxMax        = 100
	// claimPoll is how often a waiting claim looks at the queue when
	// nothing wakes it: work created by another process (an ingest, a
	// failed delivery coming due) wakes nobody here.
	claimPoll = 250 * time.Millisecond
)

// claim answers POST /api/v1/destinations/{name}/claim: it leases up to max
// due deliveries of a pull destination, waiting up to wait for one to come
// due, and hands each over with its raw body and the headers a push would
// carry.
func (h *handler) claim(w http.ResponseWriter, r *http.Request) {
	if h.queue == nil {
		h.fail(w, r, errNoQueue)
		return
	}
	name := r.PathValue("name")
	if !canConsume(tokenFrom(r.Context()), name) {
		h.fail(w, r, errForbidden)
		return
	}
	dest, ok := h.cfg.Destination(name)
	if !ok {
		h.fail(w, r, notFound("no destination %q in the config", name))
		return
	}
	if !dest.Pull {
		h.fail(w, r, badRequest("destination %q is pushed to its URL; only pull destinations are claimed", name))
		return
	}
	q := r.URL.Query()
	if err := checkQuery(q, "max", "wait", "lease"); err != nil {
		h.fail(w, r, err)
		return
	}
	n, err := intParam(q, "max", defaultMax, 1, maxMax)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	wait, err := waitParam(q.Get("wait"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	leaseFor, err := leaseParam(q.Get("lease"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	claims, held, err := h.claimWaiting(r.Context(), h.closing.watch(r), claimAsk{
		destination: name, max: n, perBody: largestBody(h.cfg, dest), wait: wait, lease: leaseFor,
	})
	defer func() { claimsInFlight.give(held) }()
	if err != nil {
		h.fail(w, r, fmt.Errorf("claim %s: %w", name, err))
		return
	}
	if r.Context().Err() != nil {
		// The consumer went away while the claim waited: nobody will read
		// the answer, so the rows go back now rather than after the lease.
		h.release(claims)
		return
	}
	out, err := h.handOver(dest, claims, leaseFor)
	if err != nil {
		h.release(claims)
		h.fail(w, r, fmt.Errorf("claim %s: %w", name, err))
		return
	}
	if len(claims) == 0 {
		auditQuiet(r.Context())
	}
	audit(r.Context(), keyDestination, name, "claimed", len(claims))
	if err := writeClaimed(w, out, claims, &held); err != nil {
		// The answer did not get through whole, so the consumer cannot
		// have read it: the rows go back now.
		h.release(claims)
		h.logger.Warn("claim answer not written; its deliveries were released", keyDestination, name, keyError, err)
	}
}

// waitParam reads a claim's wait: a duration ("30s") or whole seconds,
// at most maxClaimWait.
func waitParam(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		secs, serr := strconv.Atoi(v)
		if serr != nil {
			return 0, badRequest("wait: want a duration such as 30s, got %q", v)
		}
		d = time.Duration(secs) * time.Second
	}
	if d < 0 {
		return 0, badRequest("wait: want a duration of at least 0, got %q", v)
	}
	return min(d, maxClaimWait), nil
}

// leaseParam reads a claim's lease: a duration within [MinClaimLease,
// MaxClaimLease], ClaimLease when absent.
func leaseParam(v string) (time.Duration, error) {
	if v == "" {
		return ClaimLease, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < MinClaimLease || d > MaxClaimLease {
		return 0, badRequest("lease: want a duration from %s to %s, got %q", MinClaimLease, MaxClaimLease, v)
	}
	return d, nil
}

// claimAsk is what one claim request asks for.
type claimAsk struct {
	destination string
	max         int
	// perBody is the largest body the destination's sources accept.
	perBody     int64
	wait, lease time.Duration
}

// claimWaiting claims, and while nothing is due and wait has not passed,
// claims again whenever the destination is woken or claimPoll passes. A
// caller that goes away, or the server shutting down (closing), ends the
// wait with nothing claimed.
//
// held is how many bytes of claimsInFlight the claims' bodies keep (see
// claimWithin), for the caller to give back once they are written.
func (h *handler) claimWaiting(ctx context.Context, closing <-chan struct{}, ask claimAsk) (claims []store.Claim, held int64, err error) {
	deadline := time.NewTimer(ask.wait)
	defer deadline.Stop()
	poll := time.NewTicker(claimPoll)
	defer poll.Stop()
	roomCtx, cancel := context.WithTimeout(ctx, max(ask.wait, claimBudgetWait))
	defer cancel()
	for {
		woken := h.pulls.wait(ask.destination)
		claims, held, err = h.claimWithin(ctx, roomCtx, ask)
		if err != nil || len(claims) > 0 || ask.wait <= 0 {
			return claims, held, err
		}
		select {
		case <-ctx.Done():
			return nil, 0, nil
		case <-closing:
			return nil, 0, nil
		case <-deadline.C:
			return nil, 0, nil
		case <-woken:
		case <-poll.C:
		}
	}
}

// claimWithin claims up to ask.max deliveries within the byte budgets, in
// rounds: each takes room for its bodies from claimsInFlight, asks the
// store for no more rows than that room holds at ask.perBody bytes each,
// and gives back what the bodies did not use; the next round asks for what
// the answer's budget (claimAnswerBytes) has left, until ask.max, a round
// that drains the queue, or a budget runs out. The first round waits for
// room until roomCtx ends, and claims nothing if it ends first; later
// rounds do not wait. held is the bytes of the bodies claimed, still taken
// from claimsInFlight.
func (h *handler) claimWithin(ctx, roomCtx context.Context, ask claimAsk) (claims []store.Claim, held int64, err error) {
	for len(claims) < ask.max {
		rows := min(ask.max-len(claims), claimRows(ask.max, ask.perBody, held))
		if rows < 1 && len(claims) > 0 {
			break
		}
		var room int64
		if len(claims) == 0 {
			room, err = claimsInFlight.take(roomCtx, int64(max(rows, 1))*ask.perBody)
			if err != nil {
				h.logger.Warn("claim found no room in the claims' byte budget; answering with no delivery",
					keyDestination, ask.destination, "in_flight_bytes", claimsInFlight.inUse())
				return nil, 0, nil
			}
		} else if room = claimsInFlight.tryTake(int64(rows) * ask.perBody); room < ask.perBody {
			claimsInFlight.give(room)
			break
		}
		rows = max(1, int(room/ask.perBody))
		got, err := h.queue.ClaimDeliveries(ctx, store.ClaimRequest{Destination: ask.destination, Max: rows, Lease: ask.lease, Now: h.now()})
		n := bodyBytes(got)
		if n > room {
			// Bodies stored under a larger max_body than the config's now.
			claimsInFlight.force(n - room)
		} else {
			claimsInFlight.give(room - n)
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

// handOver turns claims into what the consumer receives, bodies aside
// (writeClaimed adds them): the headers are built and signed exactly as a
// push to the destination would be.
func (h *handler) handOver(dest *config.Destination, claims []store.Claim, leaseFor time.Duration) (Claimed, error) {
	out := Claimed{Deliveries: make([]ClaimedDelivery, 0, len(claims)), LeaseSeconds: int(leaseFor / time.Second)}
	target := delivery.Target{Secret: dest.Secret, ForwardHeaders: dest.ForwardHeaders}
	now := h.now()
	for _, c := range claims {
		hd, err := target.Headers(c.Event, c.Delivery, now)
		if err != nil {
			return out, err
		}
		flat := make(map[string]string, len(hd))
		for k, vs := range hd {
			flat[k] = strings.Join(vs, ", ")
		}
		l := lease{DeliveryID: c.Delivery.ID, Destination: dest.Name, EventID: c.Event.ID, StoreToken: c.LeaseToken}
		out.Deliveries = append(out.Deliveries, ClaimedDelivery{
			ID:              c.Delivery.ID,
			EventID:         c.Event.ID,
			Source:          c.Event.Source,
			Type:            c.Event.Type,
			ProviderEventID: c.Event.ProviderEventID,
			Attempt:         c.Delivery.Attempts,
			Headers:         flat,
			LeaseToken:      l.encode(),
		})
	}
	return out, nil
}

// release hands claims back to the queue after a failure to pass them on.
func (h *handler) release(claims []store.Claim) {
	if len(claims) == 0 {
		return
	}
	rs := make([]store.Release, len(claims))
	for i, c := range claims {
		rs[i] = store.Release{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.queue.ReleaseDeliveries(ctx, rs); err != nil {
		h.logger.Warn("release claimed deliveries; they return when their lease runs out", keyError, err)
	}
}
