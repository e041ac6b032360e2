package receiver

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookrelay/hookrelay/internal/tracing"
)

// Span names of ingest.
const (
	spanIngest = "hookrelay.ingest"
	spanVerify = "hookrelay.verify"
	spanCommit = "hookrelay.commit"
)

// traceIngest starts the ingest span of a request to src, as the root of
// the trace of the event it may store under eventID, when traces are on.
// The caller ends the span after respond has described the answer.
func traceIngest(r *http.Request, src *Source, eventID string) (*http.Request, trace.Span) {
	if !tracing.Enabled() {
		return r, trace.SpanFromContext(r.Context()) // a no-op span
	}
	ctx, span := tracing.Tracer().Start(tracing.ForIngest(r.Context(), eventID), spanIngest,
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String(tracing.AttrSource, src.Name)))
	return r.WithContext(ctx), span
}

// traceStep starts a child span of the ingest span in ctx; the returned
// function ends it with err.
func traceStep(ctx context.Context, name string) func(err error) {
	if !tracing.Enabled() {
		return func(error) {}
	}
	_, span := tracing.Tracer().Start(ctx, name)
	return func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, answerFor(err).reason)
		}
		span.End()
	}
}

// traceAnswer describes the answer of a request on its ingest span: ids,
// type, outcome, reason and status; never a payload byte or a header.
func traceAnswer(ctx context.Context, o outcome, a answer) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	var name string
	switch {
	case o.handshake != nil:
		name = "handshake"
	case o.err == nil && o.inserted:
		name = "stored"
	case o.err == nil:
		name = "duplicate"
	case a.status < 500:
		name = "rejected"
	default:
		name = "error"
	}
	span.SetAttributes(
		attribute.String(tracing.AttrOutcome, name),
		attribute.Int(tracing.AttrStatusCode, a.status),
	)
	if o.err != nil {
		span.SetAttributes(attribute.String(tracing.AttrReason, a.reason))
	}
	if o.event.ProviderEventID != "" {
		span.SetAttributes(
			attribute.String(tracing.AttrProviderEventID, o.event.ProviderEventID),
			attribute.String(tracing.AttrEventType, o.event.Type))
	}
	if o.inserted {
		span.SetAttributes(attribute.String(tracing.AttrEventID, o.event.ID))
	}
	if a.status >= 500 {
		span.SetStatus(codes.Error, a.reason)
	}
}
