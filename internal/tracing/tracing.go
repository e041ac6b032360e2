// Package tracing holds hookrelay's OpenTelemetry traces, off by default.
//
// Each stored event has one trace, whose id is the event's hookrelay id (a
// ULID: 16 bytes, the size of a trace id). The ingest span's id is derived
// from the event id too, so that a delivery attempt, in this process or
// another and however much later, starts its span as a child of the
// ingest span without anything being stored. The destination receives the
// attempt's W3C traceparent and can continue the trace.
//
// Spans carry ids, types, outcomes and status codes: never a payload byte,
// a header value or a secret.
package tracing

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync/atomic"

	"github.com/oklog/ulid/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of hookrelay's spans.
const tracerName = "github.com/hookrelay/hookrelay"

// Attribute keys of hookrelay's spans.
const (
	AttrSource          = "hookrelay.source"
	AttrEventID         = "hookrelay.event_id"
	AttrProviderEventID = "hookrelay.provider_event_id"
	AttrEventType       = "hookrelay.event_type"
	AttrOutcome         = "hookrelay.outcome"
	AttrReason          = "hookrelay.reason"
	AttrDestination     = "hookrelay.destination"
	AttrDeliveryID      = "hookrelay.delivery_id"
	AttrAttempt         = "hookrelay.attempt"
	AttrStatusCode      = "http.response.status_code"
)

// enabled is set once an exporter is installed: without one, hookrelay
// starts no trace and sends no traceparent.
var enabled atomic.Bool

// Enabled reports whether traces are exported.
func Enabled() bool { return enabled.Load() }

// SetEnabled turns hookrelay's spans and traceparent headers on once an
// exporter and its tracer provider are installed (otlpexport.Setup), and
// off before the exporter stops.
func SetEnabled(on bool) { enabled.Store(on) }

// Tracer returns hookrelay's tracer, from the global provider: a no-op
// until an exporter installs one (otlpexport.Setup).
func Tracer() trace.Tracer { return otel.Tracer(tracerName) }

// EventTraceID returns the trace id of an event: its ULID's bytes, or, for
// an id that is not a ULID, the start of its SHA-256.
func EventTraceID(eventID string) trace.TraceID {
	if u, err := ulid.ParseStrict(eventID); err == nil {
		return trace.TraceID(u)
	}
	sum := sha256.Sum256([]byte(eventID))
	return trace.TraceID(sum[:16])
}

// IngestSpanID returns the span id of an event's ingest span.
func IngestSpanID(eventID string) trace.SpanID {
	sum := sha256.Sum256([]byte("ingest\x00" + eventID))
	id := trace.SpanID(sum[:8])
	if !id.IsValid() {
		id[7] = 1
	}
	return id
}

// wantIDs carries the ids the next root span started with its context
// must have; IDGenerator reads it.
type wantIDs struct{}

type eventIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// ForIngest returns ctx with which the ingest span of eventID is started,
// as the root of the event's trace.
func ForIngest(ctx context.Context, eventID string) context.Context {
	return context.WithValue(ctx, wantIDs{}, eventIDs{EventTraceID(eventID), IngestSpanID(eventID)})
}

// ForDelivery returns ctx with the ingest span of eventID as the remote
// parent, for a delivery attempt's span; ctx itself when traces are off.
func ForDelivery(ctx context.Context, eventID string) context.Context {
	if !Enabled() {
		return ctx
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    EventTraceID(eventID),
		SpanID:     IngestSpanID(eventID),
		TraceFlags: trace.FlagsSampled,
		Remote:     true,
	})
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}

// Inject sets the W3C traceparent of the span in ctx on h, when traces are
// on and the span is valid.
func Inject(ctx context.Context, h http.Header) {
	if !Enabled() || !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(h))
}
