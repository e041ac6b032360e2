package postgres

import (
	"context"
	"fmt"
	"time"
)

// SignatureReused reads whether another provider id of source stored
// digest since since.
func (s *Store) SignatureReused(ctx context.Context, source string, digest []byte, providerEventID string, since time.Time) (bool, error) {
	var reused bool
	if err := s.other.QueryRow(ctx, signatureReused, source, digest, since, providerEventID).Scan(&reused); err != nil {
		return false, fmt.Errorf("look up signature digest: %w", s.mapErr(ctx, err))
	}
	return reused, nil
}
