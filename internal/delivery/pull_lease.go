package delivery

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
)

// ErrNoLease reports a lease token that names no delivery of the
// destination it names: the delivery is gone, or the token was edited.
var ErrNoLease = errors.New("delivery: the lease names no delivery of a pull destination")

// Lease is what a pull consumer's lease token carries: which delivery it
// leases, of which event and destination, and the store's own lease token.
// It is not sealed, and nothing in it is trusted beyond naming a delivery:
// the store token is 128 random bits the store checks when the outcome is
// recorded, and the attempt number and claim time an ack records are read
// from the delivery row (see Puller.leased), so a consumer that edits its
// token gains nothing. Every relay sharing the database reads the same row,
// so any node can take the ack.
type Lease struct {
	DeliveryID  int64
	Destination string
	EventID     string
	storeToken  string
}

// leaseWire is a Lease as its token carries it.
type leaseWire struct {
	DeliveryID  int64  `json:"d"`
	Destination string `json:"n"`
	EventID     string `json:"e"`
	StoreToken  string `json:"t"` // the store's own lease token
}

var b64 = base64.RawURLEncoding

// leaseFor returns the lease of a claimed delivery of destination.
func leaseFor(destination string, c store.Claim) Lease {
	return Lease{DeliveryID: c.Delivery.ID, Destination: destination, EventID: c.Event.ID, storeToken: c.LeaseToken}
}

// Token returns the lease token of l: its JSON in base64url.
func (l Lease) Token() string {
	payload, _ := json.Marshal(leaseWire{l.DeliveryID, l.Destination, l.EventID, l.storeToken})
	return b64.EncodeToString(payload)
}

// OpenLease reads a lease token a claim handed out. A token handed out
// before leases were checked against the delivery row ends with a dot and
// a seal, which is ignored.
func OpenLease(token string) (l Lease, ok bool) {
	p, _, _ := strings.Cut(token, ".")
	raw, err := b64.DecodeString(p)
	if err != nil {
		return l, false
	}
	var w leaseWire
	if json.Unmarshal(raw, &w) != nil || w.Destination == "" || w.EventID == "" || w.StoreToken == "" {
		return l, false
	}
	return Lease{DeliveryID: w.DeliveryID, Destination: w.Destination, EventID: w.EventID, storeToken: w.StoreToken}, true
}

// leased reads the delivery l names, as the store holds it: its
// destination, attempt number and claim time (the row's updated_at, which a
// claim sets) are the ones the ack records. The row may have been claimed
// again since l was handed out; completing under l's store token then fails
// with store.ErrLeaseLost, so whatever is recorded always belongs to the
// claim that handed l out. It returns ErrNoLease when no such delivery
// exists.
func (p *Puller) leased(ctx context.Context, l Lease) (store.Delivery, error) {
	ds, err := p.events.EventDeliveries(ctx, l.EventID)
	if err != nil {
		return store.Delivery{}, fmt.Errorf("read delivery %d: %w", l.DeliveryID, err)
	}
	for _, d := range ds {
		if d.ID == l.DeliveryID && d.Destination == l.Destination {
			return d, nil
		}
	}
	return store.Delivery{}, ErrNoLease
}
