package adminapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
)

// lease is what a pull consumer's lease token carries: which delivery it
// leases, of which event and destination, and the store's own lease token.
// It is not sealed, and nothing in it is trusted beyond naming a delivery:
// the store token is 128 random bits the store checks when the outcome is
// recorded, and the attempt number and claim time an ack records are read
// from the delivery row (see leasedDelivery), so a consumer that edits its
// token gains nothing. Every relay sharing the database reads the same row,
// so any node can take the ack.
type lease struct {
	DeliveryID  int64  `json:"d"`
	Destination string `json:"n"`
	EventID     string `json:"e"`
	StoreToken  string `json:"t"` // the store's own lease token
}

var b64 = base64.RawURLEncoding

// encode returns the token of l: its JSON in base64url.
func (l lease) encode() string {
	payload, _ := json.Marshal(l)
	return b64.EncodeToString(payload)
}

// openLease reads a token. A token handed out before leases were checked
// against the delivery row ends with a dot and a seal, which is ignored.
func openLease(token string) (l lease, ok bool) {
	p, _, _ := strings.Cut(token, ".")
	raw, err := b64.DecodeString(p)
	if err != nil {
		return l, false
	}
	if json.Unmarshal(raw, &l) != nil || l.Destination == "" || l.EventID == "" || l.StoreToken == "" {
		return l, false
	}
	return l, true
}

// leasedDelivery reads the delivery l names, as the store holds it: its
// destination, attempt number and claim time (the row's updated_at, which a
// claim sets) are the ones the ack records. The row may have been claimed
// again since l was handed out; completing under l's store token then fails
// with store.ErrLeaseLost, so whatever is recorded always belongs to the
// claim that handed l out. It returns errLeaseMismatch when no such delivery
// exists.
func (h *handler) leasedDelivery(ctx context.Context, l lease) (store.Delivery, error) {
	ds, err := h.store.EventDeliveries(ctx, l.EventID)
	if err != nil {
		return store.Delivery{}, fmt.Errorf("read delivery %d: %w", l.DeliveryID, err)
	}
	for _, d := range ds {
		if d.ID == l.DeliveryID && d.Destination == l.Destination {
			return d, nil
		}
	}
	return store.Delivery{}, errLeaseMismatch
}
