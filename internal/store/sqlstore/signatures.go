package sqlstore

import (
	"context"
	"fmt"
	"time"
)

// signatureReused looks up events_signature_digest: one index range of the
// source's events with this digest.
const signatureReused = `SELECT EXISTS (
	SELECT 1 FROM events
	WHERE source = ? AND signature_digest = ? AND received_at >= ? AND provider_event_id <> ?
)`

// SignatureReused reads whether another provider id of source stored
// digest since since.
func (o *Ops) SignatureReused(ctx context.Context, source string, digest []byte, providerEventID string, since time.Time) (bool, error) {
	release, err := o.enter()
	if err != nil {
		return false, fmt.Errorf("look up signature digest: %w", err)
	}
	defer release()
	var reused bool
	if err := o.b.Read.QueryRow(ctx, signatureReused, source, digest, o.b.Dialect.Time(since), providerEventID).Scan(&reused); err != nil {
		return false, o.fail(ctx, "look up signature digest", err)
	}
	return reused, nil
}
