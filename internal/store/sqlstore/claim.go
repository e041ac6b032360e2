package sqlstore

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// NewLeaseTokens returns n random lease tokens of 128 bits, in hex.
func NewLeaseTokens(n int) ([]string, error) {
	b := make([]byte, 16*n)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("make lease tokens: %w", err)
	}
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = hex.EncodeToString(b[16*i : 16*(i+1)])
	}
	return tokens, nil
}

// SortClaims puts claims in the order ClaimDeliveries returns them:
// oldest due first, then by delivery id.
func SortClaims(claims []store.Claim) {
	slices.SortFunc(claims, func(a, b store.Claim) int {
		return cmp.Or(a.Delivery.NextAttemptAt.Compare(b.Delivery.NextAttemptAt), cmp.Compare(a.Delivery.ID, b.Delivery.ID))
	})
}

// SplitReleases returns the delivery ids and the lease tokens of rs, in
// the order of rs, as the drivers pass them to their release statement.
func SplitReleases(rs []store.Release) (ids []int64, tokens []string) {
	ids = make([]int64, len(rs))
	tokens = make([]string, len(rs))
	for i, r := range rs {
		ids[i], tokens[i] = r.DeliveryID, r.LeaseToken
	}
	return ids, tokens
}

// Deferred are the deferred deliveries of a set of releases (see
// store.Lease.Deferred), as parallel arrays, to write the rows of before
// they are released: each leased until the release.
type Deferred struct {
	IDs                          []int64
	Events, Destinations, Tokens []string
	Until                        []time.Time
}

// DeferredReleases returns the deferred deliveries of rs, released at
// now.
func DeferredReleases(rs []store.Release, now time.Time) Deferred {
	var d Deferred
	for _, r := range rs {
		if r.Deferred && r.EventID != "" && r.Destination != "" {
			d.IDs, d.Tokens, d.Until = append(d.IDs, r.DeliveryID), append(d.Tokens, r.LeaseToken), append(d.Until, now)
			d.Events, d.Destinations = append(d.Events, r.EventID), append(d.Destinations, r.Destination)
		}
	}
	return d
}
