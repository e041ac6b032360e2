package sqlstore

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// signatureReused looks up events_signature_digest: one index range of the
// source's events with this digest.
const signatureReused = `SELECT EXISTS (
	SELECT 1 FROM hookrelay.events
	WHERE source = ? AND signature_digest = ? AND received_at >= ? AND provider_event_id <> ?
)`

// SignatureReused reads whether another provider id of q.Source stored
// q.Digest since q.Since.
func (o *Ops) SignatureReused(ctx context.Context, q store.SignatureQuery) (bool, error) {
	release, err := o.enter()
	if err != nil {
		return false, fmt.Errorf("look up signature digest: %w", err)
	}
	defer release()
	var reused bool
	if err := o.b.Read.QueryRow(ctx, signatureReused, q.Source, q.Digest, o.b.Dialect.Time(q.Since), q.ProviderEventID).Scan(&reused); err != nil {
		return false, o.fail(ctx, "look up signature digest", err)
	}
	return reused, nil
}
