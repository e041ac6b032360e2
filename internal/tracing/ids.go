package tracing

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"
	"sync"

	"go.opentelemetry.io/otel/trace"
)

// IDGenerator gives an event's ingest span the ids ForIngest asked for, and
// every other span random ids. It is the id generator of the tracer
// provider an exporter installs (the SDK's IDGenerator interface).
type IDGenerator struct {
	mu  sync.Mutex // guards rnd
	rnd *rand.ChaCha8
}

// NewIDGenerator returns an IDGenerator seeded from crypto/rand.
func NewIDGenerator() *IDGenerator {
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	return &IDGenerator{rnd: rand.NewChaCha8(seed)}
}

// NewIDs returns the ids of a root span.
func (g *IDGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if ids, ok := ctx.Value(wantIDs{}).(eventIDs); ok {
		return ids.trace, ids.span
	}
	var tid trace.TraceID
	g.mu.Lock()
	defer g.mu.Unlock()
	for !tid.IsValid() {
		_, _ = g.rnd.Read(tid[:])
	}
	return tid, g.spanID()
}

// NewSpanID returns the id of a child span.
func (g *IDGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spanID()
}

// spanID returns a random valid span id; g.mu is held.
func (g *IDGenerator) spanID() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		binary.BigEndian.PutUint64(sid[:], g.rnd.Uint64())
	}
	return sid
}
