package receiver

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// errReplayedSignature reports a new delivery id on a body and signature
// that the source already stored under another id: for a scheme that signs
// the body alone, the mark of a captured request posted again.
var errReplayedSignature = errors.New("body and signature already stored under another delivery id")

// ReplayHorizon is how long a body-only signature is remembered: the
// longest retry or redelivery window among the providers that sign the body
// alone (GitHub lets a delivery be redelivered for 3 days). A provider's
// own retries and redeliveries keep their delivery id, so they are never
// caught by it.
const ReplayHorizon = 72 * time.Hour

// SignatureIndex finds a body-only signature stored under another provider
// id; store.Store implements it.
type SignatureIndex interface {
	SignatureReused(ctx context.Context, q store.SignatureQuery) (bool, error)
}

// replayGuard refuses the re-post of a body-only signature under a new
// delivery id. The store answers for what is committed; the guard itself
// answers for what is being committed in this process, so that two
// re-posts in flight at once cannot both pass.
type replayGuard struct {
	index SignatureIndex

	mu       sync.Mutex        // guards inflight
	inflight map[string]string // source + digest -> provider id being stored
}

func newReplayGuard(index SignatureIndex) *replayGuard {
	return &replayGuard{index: index, inflight: make(map[string]string)}
}

// signatureDigest returns the SHA-256 of a decoded signature and the
// content it signs, with the signature's length first so that no two
// pairs share one input. Decoded, a signature has one spelling: its
// letter case, padding or place among others in a header cannot make a
// re-post look new.
func signatureDigest(mac, signed []byte) []byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(mac)))
	h.Write(n[:])
	h.Write(mac)
	h.Write(signed)
	return h.Sum(nil)
}

// enter checks the digest of an event about to be stored. On success the
// caller calls leave once the commit is over, whatever its outcome.
func (g *replayGuard) enter(ctx context.Context, source, providerID string, digest []byte, now time.Time) (leave func(), err error) {
	leave = func() {}
	if g == nil || g.index == nil {
		return leave, nil
	}
	key := source + "\x00" + string(digest)
	g.mu.Lock()
	switch holder, ok := g.inflight[key]; {
	case ok && holder != providerID:
		g.mu.Unlock()
		return leave, fmt.Errorf("check signature digest: in flight: %w", errReplayedSignature)
	case !ok:
		g.inflight[key] = providerID
		leave = func() {
			g.mu.Lock()
			delete(g.inflight, key)
			g.mu.Unlock()
		}
	}
	g.mu.Unlock()
	reused, err := g.index.SignatureReused(ctx, store.SignatureQuery{
		Source: source, Digest: digest, ProviderEventID: providerID, Since: now.Add(-ReplayHorizon),
	})
	switch {
	case err != nil:
		leave()
		return func() {}, fmt.Errorf("check signature digest: %w", err)
	case reused:
		leave()
		return func() {}, fmt.Errorf("check signature digest: %w", errReplayedSignature)
	}
	return leave, nil
}

var _ SignatureIndex = store.Store(nil)
