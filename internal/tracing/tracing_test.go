package tracing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/tracing"
)

// TestWanted checks the rule that turns traces on from the environment.
func TestWanted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr string
	}{
		{"nothing set", nil, false, ""},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true, ""},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true, ""},
		{"exporter otlp, default endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, ""},
		{"exporter none", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, false, ""},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false, ""},
		{"exporter unsupported", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, "OTEL_TRACES_EXPORTER=zipkin"},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
		{"traces protocol wins", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, true, ""},
	}
	for _, tt := range tests {
		got, err := tracing.Wanted(func(k string) string { return tt.env[k] })
		if got != tt.want || (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: Wanted = %t, %v; want %t, error with %q", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestEventTraceID checks that an event's trace id is its ULID, and that
// the ids of another form still give a valid one.
func TestEventTraceID(t *testing.T) {
	t.Parallel()
	id := ulid.Make()
	if got := tracing.EventTraceID(id.String()); got != [16]byte(id) {
		t.Errorf("EventTraceID(%s) = %s, want the ULID's bytes", id, got)
	}
	if got := tracing.EventTraceID("evt_not_a_ulid"); !got.IsValid() {
		t.Error("EventTraceID of a non-ULID id is not valid")
	}
	if a, b := tracing.IngestSpanID(id.String()), tracing.IngestSpanID(id.String()); a != b || !a.IsValid() {
		t.Errorf("IngestSpanID = %s then %s, want one valid id", a, b)
	}
}

// TestOffByDefault checks that without Setup nothing is traced or sent.
func TestOffByDefault(t *testing.T) {
	t.Parallel()
	ctx := tracing.ForDelivery(context.Background(), ulid.Make().String())
	h := http.Header{}
	tracing.Inject(ctx, h)
	if tracing.Enabled() || h.Get("Traceparent") != "" {
		t.Errorf("traces off: Enabled %t, traceparent %q", tracing.Enabled(), h.Get("Traceparent"))
	}
}
