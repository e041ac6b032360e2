package tracing_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/tracing"
)

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

// TestOffByDefault checks that without an exporter nothing is traced or sent.
func TestOffByDefault(t *testing.T) {
	t.Parallel()
	ctx := tracing.ForDelivery(context.Background(), ulid.Make().String())
	h := http.Header{}
	tracing.Inject(ctx, h)
	if tracing.Enabled() || h.Get("Traceparent") != "" {
		t.Errorf("traces off: Enabled %t, traceparent %q", tracing.Enabled(), h.Get("Traceparent"))
	}
}
