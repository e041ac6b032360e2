package delivery

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/tracing"
)

// spanAttempt is the span name of one push attempt.
const spanAttempt = "hookrelay.deliver"

// traceAttempt starts the span of one push attempt of d, a child of ev's
// ingest span, when traces are on; the returned function ends it with the
// attempt's result. The request sent within ctx carries the span's
// traceparent (tracing.Inject).
func traceAttempt(ctx context.Context, ev store.Event, d store.Delivery) (context.Context, func(*Result)) {
	if !tracing.Enabled() {
		return ctx, func(*Result) {}
	}
	ctx, span := tracing.Tracer().Start(tracing.ForDelivery(ctx, ev.ID), spanAttempt,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String(tracing.AttrDestination, d.Destination),
			attribute.Int64(tracing.AttrDeliveryID, d.ID),
			attribute.Int(tracing.AttrAttempt, d.Attempts),
			attribute.String(tracing.AttrEventID, ev.ID),
			attribute.String(tracing.AttrSource, ev.Source),
			attribute.String(tracing.AttrEventType, ev.Type),
		))
	return ctx, func(res *Result) {
		span.SetAttributes(attribute.String(tracing.AttrOutcome, string(res.Outcome)))
		if res.StatusCode != 0 {
			span.SetAttributes(attribute.Int(tracing.AttrStatusCode, res.StatusCode))
		}
		if res.Outcome == store.StatusFailed {
			// The error text names a status or a timeout, never the URL.
			span.SetStatus(codes.Error, res.Error)
		}
		span.End()
	}
}
