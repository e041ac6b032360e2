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
// it. A request takes from it the buffer it grows as its body arrives, not
// the length it declares: a client that declares a large body and sends it
// slowly holds only what it has sent, so a few slow clients cannot starve
// the others. Each growth waits at most wait for room.
type bodyBudget struct {
	sem  *semaphore.Weighted
	max  int64
	wait time.Duration
}

func newBodyBudget(max int64, wait time.Duration) *bodyBudget {
	return &bodyBudget{sem: semaphore.NewWeighted(max), max: max, wait: wait}
}

// take takes n bytes of the budget, waiting at most b.wait.
func (b *bodyBudget) take(ctx context.Context, n int64) error {
	ctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	if err := b.sem.Acquire(ctx, n); err != nil {
		return fmt.Errorf("reserve %d body bytes: %w", n, errOverloaded)
	}
	return nil
}

// give returns n bytes to the budget.
func (b *bodyBudget) give(n int64) {
	if n > 0 {
		b.sem.Release(n)
	}
}

// firstBodyBuffer is the size of the buffer a body is first read into; it
// doubles as the body arrives, up to its declared length or the limit.
const firstBodyBuffer = 4 << 10

// readBody reads the whole body of r, at most limit bytes, into a buffer
// that grows as bytes arrive and whose size it takes from the budget. A
// declared length over the limit is refused before a byte is read; an
// undeclared one is cut off as soon as it passes the limit. The caller
// gives back held bytes once the body is no longer needed, error or not.
func (b *bodyBudget) readBody(w http.ResponseWriter, r *http.Request, limit int64) (body []byte, held int64, err error) {
	if r.ContentLength > limit {
		return nil, 0, fmt.Errorf("declared %d bytes, limit %d: %w", r.ContentLength, limit, errBodyTooLarge)
	}
	want := limit
	if r.ContentLength >= 0 {
		want = r.ContentLength
	}
	src := http.MaxBytesReader(w, r.Body, limit)
	buf := []byte{}
	for int64(len(buf)) < want {
		if len(buf) == cap(buf) {
			size := min(max(2*int64(cap(buf)), firstBodyBuffer), want)
			// A body larger than the whole budget holds all of it.
			if more := min(size, b.max) - held; more > 0 {
				if err := b.take(r.Context(), more); err != nil {
					return nil, held, err
				}
				held += more
			}
			grown := make([]byte, len(buf), size)
			copy(grown, buf)
			buf = grown
		}
		n, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if r.ContentLength >= 0 && int64(len(buf)) < want {
				return nil, held, bodyError(io.ErrUnexpectedEOF)
			}
			return buf, held, nil
		}
		if err != nil {
			return nil, held, bodyError(err)
		}
	}
	if r.ContentLength < 0 {
		// The buffer holds limit bytes: anything more is too large.
		var probe [1]byte
		if n, err := io.ReadFull(src, probe[:]); n > 0 || !errors.Is(err, io.EOF) {
			if err == nil {
				err = &http.MaxBytesError{Limit: limit}
			}
			return nil, held, bodyError(err)
		}
	}
	return buf, held, nil
}

func bodyError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return fmt.Errorf("read body: %w", errBodyTooLarge)
	}
	return fmt.Errorf("read body: %w: %w", errBodyRead, err)
}
