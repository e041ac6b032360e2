package tracing

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Wanted tells from the environment whether traces are to be exported, and
// refuses what hookrelay cannot do. Traces are on when OTEL_TRACES_EXPORTER
// is "otlp", or when it is unset and OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; OTEL_SDK_DISABLED=true and
// OTEL_TRACES_EXPORTER=none turn them off. The protocol is http/protobuf.
func Wanted(getenv func(string) string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	exporter := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")))
	switch exporter {
	case "none":
		return false, nil
	case "", "otlp":
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: hookrelay exports traces with otlp only (or none)", exporter)
	}
	for _, key := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(key)); p != "" {
			if p != "http/protobuf" {
				return false, fmt.Errorf("%s=%s: hookrelay exports traces with http/protobuf only", key, p)
			}
			break
		}
	}
	if exporter == "otlp" {
		return true, nil
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "", nil
}

// Setup installs the OTLP/HTTP exporter and the global tracer provider when
// the environment asks for traces (see Wanted), configured by the standard
// OTEL_* variables (endpoint, headers, timeout, compression, batching,
// sampler, resource attributes). It returns the function that flushes and
// stops it; a no-op when traces are off.
func Setup(ctx context.Context, getenv func(string) string, version string, logger *slog.Logger) (shutdown func(context.Context) error, err error) {
	noop := func(context.Context) error { return nil }
	on, err := Wanted(getenv)
	if err != nil || !on {
		return noop, err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return noop, fmt.Errorf("start trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "hookrelay"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return noop, fmt.Errorf("describe trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(newIDGenerator()),
	)
	otel.SetTracerProvider(tp)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("trace export", "error", err)
	}))
	enabled.Store(true)
	logger.Info("traces exported over OTLP/HTTP")
	return func(ctx context.Context) error {
		enabled.Store(false)
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("flush traces: %w", err)
		}
		return nil
	}, nil
}

// idGenerator gives an event's ingest span the ids ForIngest asked for, and
// every other span random ids.
type idGenerator struct {
	mu  sync.Mutex // guards rnd
	rnd *rand.ChaCha8
}

func newIDGenerator() *idGenerator {
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	return &idGenerator{rnd: rand.NewChaCha8(seed)}
}

// NewIDs returns the ids of a root span.
func (g *idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
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
func (g *idGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spanID()
}

// spanID returns a random valid span id; g.mu is held.
func (g *idGenerator) spanID() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		binary.BigEndian.PutUint64(sid[:], g.rnd.Uint64())
	}
	return sid
}
