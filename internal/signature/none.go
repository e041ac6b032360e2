package signature

import (
	"net/http"

	"github.com/hookrelay/hookrelay/internal/store"
)

// none verifies nothing: every request is valid, with slot store.NoSlot.
// It is meant for local use only.
type none struct {
	common
	noHandshake
}

func newNone(_ Options, c common) (Scheme, error) { return &none{common: c}, nil }

func (*none) Name() string { return "none" }

func (*none) Verify(Request) (Result, error) { return Result{Slot: store.NoSlot}, nil }

// Identify reads the configured id header or field, else hashes the body;
// the type is the configured header or field, else empty.
func (n *none) Identify(req Request) (Identity, error) {
	return n.fields.complete(req, Identity{}, need{})
}

// sign sets only the configured id and type headers: nothing is signed.
func (n *none) sign(_ int, msg Message) (http.Header, error) {
	h := http.Header{}
	n.fields.setHeaders(h, msg)
	return h, nil
}
