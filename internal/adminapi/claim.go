package adminapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
)

// Bounds of a claim's query; those of its lease are delivery.ClaimLease's.
const (
	maxClaimWait = 60 * time.Second
	defaultMax   = 10
	maxMax       = 100
)

// claim answers POST /api/v1/destinations/{name}/claim: it leases up to max
// due deliveries of a pull destination, waiting up to wait for one to come
// due, and hands each over with its raw body and the headers a push would
// carry.
func (h *handler) claim(w http.ResponseWriter, r *http.Request) {
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
	batch, err := h.puller.Claim(r.Context(), delivery.PullRequest{
		Destination: *dest, Max: n, MaxBody: largestBody(h.cfg, dest), Wait: wait, Lease: leaseFor, Closing: h.closing.watch(r),
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer batch.Done()
	if r.Context().Err() != nil {
		// The consumer went away while the claim waited: nobody will read
		// the answer, so the rows go back now rather than after the lease.
		batch.Release()
		return
	}
	if len(batch.Deliveries) == 0 {
		auditQuiet(r.Context())
	}
	audit(r.Context(), keyDestination, name, "claimed", len(batch.Deliveries))
	if err := writeClaimed(w, batch, leaseFor); err != nil {
		// The answer did not get through whole, so the consumer cannot
		// have read it: the rows go back now.
		batch.Release()
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

// leaseParam reads a claim's lease: a duration within
// [delivery.MinClaimLease, delivery.MaxClaimLease], delivery.ClaimLease
// when absent.
func leaseParam(v string) (time.Duration, error) {
	if v == "" {
		return delivery.ClaimLease, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < delivery.MinClaimLease || d > delivery.MaxClaimLease {
		return 0, badRequest("lease: want a duration from %s to %s, got %q", delivery.MinClaimLease, delivery.MaxClaimLease, v)
	}
	return d, nil
}

// largestBody returns the largest body the destination's sources accept,
// which is the most one claimed delivery can carry.
func largestBody(cfg *config.Config, dest *config.Destination) int64 {
	var largest int64
	for _, name := range dest.Sources {
		if src, ok := cfg.Source(name); ok {
			largest = max(largest, int64(src.MaxBody))
		}
	}
	if largest <= 0 {
		return int64(config.DefaultMaxBody)
	}
	return largest
}

// writeClaimed writes the claim answer out, one delivery at a time: each
// body is encoded when its turn comes, and handed back to the claims'
// budget once written, so the answer never sits whole in memory.
func writeClaimed(w http.ResponseWriter, batch *delivery.Pulled, leaseFor time.Duration) error {
	w.Header().Set(adminwire.APIHeader, adminwire.APIVersion)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if _, err := io.WriteString(w, `{"deliveries":[`); err != nil {
		return err
	}
	for i, p := range batch.Deliveries {
		b, err := json.Marshal(claimedDelivery(p))
		if err != nil {
			return err
		}
		if i > 0 {
			b = append([]byte{','}, b...)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		batch.Sent(i)
	}
	_, err := fmt.Fprintf(w, "],\"lease_seconds\":%d}\n", int(leaseFor/time.Second))
	return err
}

// claimedDelivery returns a pulled delivery as the consumer receives it; a
// header with several values has them joined with ", ".
func claimedDelivery(p delivery.PulledDelivery) adminwire.ClaimedDelivery {
	flat := make(map[string]string, len(p.Headers))
	for k, vs := range p.Headers {
		flat[k] = strings.Join(vs, ", ")
	}
	c := p.Claim
	return adminwire.ClaimedDelivery{
		ID:              c.Delivery.ID,
		EventID:         c.Event.ID,
		Source:          c.Event.Source,
		Type:            c.Event.Type,
		ProviderEventID: c.Event.ProviderEventID,
		Attempt:         c.Delivery.Attempts,
		Headers:         flat,
		BodyBase64:      base64.StdEncoding.EncodeToString(c.Event.Body),
		LeaseToken:      p.LeaseToken,
	}
}
