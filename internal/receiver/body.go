package receiver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
)

// bodyBudget bounds the body bytes held in memory by requests in flight, so
// that many concurrent large bodies queue for memory instead of exhausting
// it. A request reserves its declared length (or the source's limit when it
// declares none) before reading, and releases it once answered.
type bodyBudget struct {
	sem  *semaphore.Weighted
	max  int64
	wait time.Duration
}

func newBodyBudget(max int64, wait time.Duration) *bodyBudget {
	return &bodyBudget{sem: semaphore.NewWeighted(max), max: max, wait: wait}
}

// reserve takes n bytes of the budget, waiting at most b.wait. The returned
// release must be called once the body is no longer needed.
func (b *bodyBudget) reserve(ctx context.Context, n int64) (release func(), err error) {
	n = min(max(n, 1), b.max)
	ctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("reserve %d body bytes: %w", n, errOverloaded)
	}
	return func() { b.sem.Release(n) }, nil
}

// readBody reads the whole body of r, at most limit bytes. A declared length
// over the limit is refused before a byte is read; an undeclared one is cut
// off by http.MaxBytesReader as soon as it passes the limit.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("declared %d bytes, limit %d: %w", r.ContentLength, limit, errBodyTooLarge)
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	if r.ContentLength >= 0 {
		buf := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, bodyError(err)
		}
		return buf, nil
	}
	buf, err := io.ReadAll(body)
	if err != nil {
		return nil, bodyError(err)
	}
	return buf, nil
}

func bodyError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return fmt.Errorf("read body: %w", errBodyTooLarge)
	}
	return fmt.Errorf("read body: %w: %w", errBodyRead, err)
}
