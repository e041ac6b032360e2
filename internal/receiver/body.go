package receiver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"golang.org/x/sync/semaphore"
)

// bodyBudget bounds the body bytes held in memory by requests in flight, so
// that many concurrent large bodies queue for memory instead of exhausting
// it. A request reads the first freeBody bytes of its body without taking
// from the budget, and takes its whole declared length (or the source's
// limit when it declares none) only once those have arrived. A client that
// declares a large body and sends it slowly therefore holds nothing until
// it has sent freeBody bytes, so a few slow clients cannot starve the
// others, while a large body that arrives takes its memory in one step, so
// that requests never each hold part of the budget waiting for more (which
// would deadlock them). The memory bodies take is at most the budget plus,
// per request whose body is arriving, the bytes it has sent up to freeBody
// (the buffer grows with them); the unread bodies of one peer address are
// bounded by peerTable.
type bodyBudget struct {
	sem  *semaphore.Weighted
	max  int64
	wait time.Duration
}

// freeBody is how much of a body is read before it takes from the budget:
// most webhooks fit in it.
const freeBody = 16 << 10

func newBodyBudget(max int64, wait time.Duration) *bodyBudget {
	return &bodyBudget{sem: semaphore.NewWeighted(max), max: max, wait: wait}
}

// take takes n bytes of the budget, at most all of it, waiting at most
// b.wait, and returns what it took.
func (b *bodyBudget) take(ctx context.Context, n int64) (int64, error) {
	n = min(n, b.max)
	ctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	if err := b.sem.Acquire(ctx, n); err != nil {
		return 0, fmt.Errorf("reserve %d body bytes: %w", n, errOverloaded)
	}
	return n, nil
}

// give returns n bytes to the budget.
func (b *bodyBudget) give(n int64) {
	if n > 0 {
		b.sem.Release(n)
	}
}

// readBody reads the whole body of r, at most limit bytes: its first
// freeBody bytes freely, the rest once it has taken room for it from the
// budget. A declared length over the limit is refused before a byte is
// read; an undeclared one is cut off as soon as it passes the limit. The
// caller gives back held bytes once the body is no longer needed, error
// or not. funded, when set, is called once the first freeBody bytes have
// arrived and the rest is to be read within the budget; an error from it
// ends the read.
func (b *bodyBudget) readBody(w http.ResponseWriter, r *http.Request, limit int64, funded func() error) (body []byte, held int64, err error) {
	if funded == nil {
		funded = func() error { return nil }
	}
	if r.ContentLength > limit {
		return nil, 0, fmt.Errorf("declared %d bytes, limit %d: %w", r.ContentLength, limit, errBodyTooLarge)
	}
	src := http.MaxBytesReader(w, r.Body, limit)
	if r.ContentLength >= 0 {
		first, err := readUpTo(src, min(r.ContentLength, freeBody))
		if err != nil {
			return nil, 0, bodyError(err)
		}
		if int64(len(first)) < min(r.ContentLength, freeBody) {
			return nil, 0, bodyError(io.ErrUnexpectedEOF)
		}
		if int64(len(first)) == r.ContentLength {
			return first, 0, nil
		}
		if err := funded(); err != nil {
			return nil, 0, err
		}
		if held, err = b.take(r.Context(), r.ContentLength); err != nil {
			return nil, 0, err
		}
		buf := make([]byte, r.ContentLength)
		copy(buf, first)
		if _, err := io.ReadFull(src, buf[len(first):]); err != nil {
			return nil, held, bodyError(err)
		}
		return buf, held, nil
	}
	buf, err := readUpTo(src, freeBody)
	if err != nil {
		return nil, 0, bodyError(err)
	}
	if len(buf) < freeBody {
		return buf, 0, nil
	}
	if err := funded(); err != nil {
		return nil, 0, err
	}
	if held, err = b.take(r.Context(), limit); err != nil {
		return nil, 0, err
	}
	rest, err := io.ReadAll(src)
	if err != nil {
		return nil, held, bodyError(err)
	}
	return append(buf, rest...), held, nil
}

func bodyError(err error) error {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return fmt.Errorf("read body: %w", errBodyTooLarge)
	}
	return fmt.Errorf("read body: %w: %w", errBodyRead, err)
}

// readUpTo reads from src until it has n bytes or src ends, into a buffer
// that grows with what arrives, up to n: a body that trickles holds memory
// for the bytes it has sent, not for the length it declared.
func readUpTo(src io.Reader, n int64) ([]byte, error) {
	buf := make([]byte, 0, min(n, 1<<10))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(n, 2*int64(cap(buf))))-len(buf))
		}
		m, err := src.Read(buf[len(buf):min(int64(cap(buf)), n)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}
