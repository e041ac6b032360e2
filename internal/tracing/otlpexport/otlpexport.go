// Package otlpexport exports hookrelay's traces over OTLP/HTTP. It is the
// only package that links the OpenTelemetry SDK and exporter: `serve`
// imports it, and an application that embeds hookrelay without asking for
// traces links neither.
package otlpexport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/hookrelay/hookrelay/internal/tracing"
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
		sdktrace.WithIDGenerator(tracing.NewIDGenerator()),
	)
	otel.SetTracerProvider(tp)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("trace export", "error", err)
	}))
	tracing.SetEnabled(true)
	logger.Info("traces exported over OTLP/HTTP")
	return func(ctx context.Context) error {
		tracing.SetEnabled(false)
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("flush traces: %w", err)
		}
		return nil
	}, nil
}
