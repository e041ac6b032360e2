package sqlite

import (
	"context"
	"fmt"
	"time"
)

// SignatureReused reads, on the reader pool, whether another provider id
// of source stored digest since since.
func (s *Store) SignatureReused(ctx context.Context, source string, digest []byte, providerEventID string, since time.Time) (bool, error) {
	release, err := s.enter()
	if err != nil {
		return false, fmt.Errorf("look up signature digest: %w", err)
	}
	defer release()
	var reused bool
	if err := s.reader.QueryRowContext(ctx, signatureReused, source, digest, micros(since), providerEventID).Scan(&reused); err != nil {
		return false, fmt.Errorf("look up signature digest: %w", mapErr(ctx, err))
	}
	return reused, nil
}
