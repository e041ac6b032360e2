package e2e

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// otlpSpan is what the test keeps of an exported span.
type otlpSpan struct {
	name                    string
	traceID, spanID, parent string
	attrs                   map[string]string
}

// otlpReceiver is a tiny OTLP/HTTP trace receiver: it decodes the
// protobuf export requests posted to /v1/traces and keeps their spans.
type otlpReceiver struct {
	url string

	mu    sync.Mutex // guards spans and bad
	spans []otlpSpan
	bad   []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rcv := &otlpReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(rcv.serve))
	t.Cleanup(srv.Close)
	rcv.url = srv.URL
	return rcv
}

func (rcv *otlpReceiver) serve(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			rcv.fail(w, "gzip: "+err.Error())
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	if err != nil || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		rcv.fail(w, fmt.Sprintf("%s %s %s: %v", r.Method, r.URL.Path, r.Header.Get("Content-Type"), err))
		return
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		rcv.fail(w, "decode: "+err.Error())
		return
	}
	rcv.mu.Lock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				rcv.spans = append(rcv.spans, spanOf(s))
			}
		}
	}
	rcv.mu.Unlock()
	answer, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(answer)
}

func (rcv *otlpReceiver) fail(w http.ResponseWriter, why string) {
	rcv.mu.Lock()
	rcv.bad = append(rcv.bad, why)
	rcv.mu.Unlock()
	http.Error(w, why, http.StatusBadRequest)
}

func spanOf(s *tracepb.Span) otlpSpan {
	out := otlpSpan{name: s.GetName(), traceID: hex.EncodeToString(s.GetTraceId()),
		spanID: hex.EncodeToString(s.GetSpanId()), parent: hex.EncodeToString(s.GetParentSpanId()),
		attrs: map[string]string{}}
	for _, kv := range s.GetAttributes() {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			out.attrs[kv.GetKey()] = v.GetStringValue()
		default:
			out.attrs[kv.GetKey()] = fmt.Sprint(v.GetIntValue())
		}
	}
	return out
}

// waitSpans returns the spans received once every name in want has been
// seen.
func (rcv *otlpReceiver) waitSpans(t *testing.T, want ...string) []otlpSpan {
	t.Helper()
	var spans []otlpSpan
	testkit.Eventually(t, 15*time.Second, fmt.Sprintf("spans %v", want), func() error {
		spans = rcv.received()
		seen := map[string]bool{}
		for _, s := range spans {
			seen[s.name] = true
		}
		for _, n := range want {
			if !seen[n] {
				return fmt.Errorf("no %s among %d spans", n, len(spans))
			}
		}
		return nil
	})
	return spans
}

// received returns the spans received so far.
func (rcv *otlpReceiver) received() []otlpSpan {
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	return append([]otlpSpan(nil), rcv.spans...)
}

// headerSink is a destination that keeps the headers of what it receives.
type headerSink struct {
	url string
	got chan http.Header
}

func newHeaderSink(t *testing.T) *headerSink {
	t.Helper()
	s := &headerSink{got: make(chan http.Header, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case s.got <- r.Header.Clone():
		default:
		}
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/hooks"
	return s
}

// next returns the headers of the next delivery, failing after 15 s.
func (s *headerSink) next(t *testing.T) http.Header {
	t.Helper()
	select {
	case h := <-s.got:
		return h
	case <-time.After(15 * time.Second):
		t.Fatal("the destination received nothing within 15 s")
		return nil
	}
}

// tracesMarker is in the body of the traced webhook: no span may carry it.
const tracesMarker = "payload-marker-7d3e"

// TestTraces runs the relay with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an
// in-test OTLP/HTTP receiver, sends one signed webhook and checks that the
// ingest span (with its verify and commit children) and the delivery
// attempt's span are exported in one trace, whose id is the event's id,
// and that the destination received a traceparent of that trace, the
// attempt's span its parent. No span carries a payload byte or a secret.
// Without OTEL_* variables there is no traceparent and nothing exported.
func TestTraces(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			rcv := newOTLPReceiver(t)
			sink := newHeaderSink(t)
			cfg := stripeSource + "destinations:\n" + pushDestination("sink", sink.url, 1, "1s", 3)
			env := append([]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.url,
				"OTEL_BSP_SCHEDULE_DELAY=100",
			}, stripeEnv...)
			p := startRelay(t, driver.URL(t), cfg, env)
			req := hostileStripe(t, p, stripeEvent("evt_traced", `"note":"`+tracesMarker+`"`), nil)
			if status, _, body, err := hostileDo(http.DefaultClient, req); status != 200 || err != nil {
				t.Fatalf("webhook: %d %s %v", status, body, err)
			}
			h := sink.next(t)
			eventID, traceparent := h.Get("Webhook-Id"), h.Get("Traceparent")
			spans := rcv.waitSpans(t, "hookrelay.ingest", "hookrelay.verify", "hookrelay.commit", "hookrelay.deliver")

			byName := map[string]otlpSpan{}
			for _, s := range spans {
				byName[s.name] = s
				for k, v := range s.attrs {
					if strings.Contains(v, tracesMarker) || strings.Contains(v, stripeSecret) || strings.Contains(v, sinkSecret) {
						t.Errorf("span %s attribute %s carries a payload byte or a secret: %q", s.name, k, v)
					}
				}
			}
			ingest, deliver := byName["hookrelay.ingest"], byName["hookrelay.deliver"]
			u, err := ulid.ParseStrict(eventID)
			if err != nil {
				t.Fatalf("webhook-id %q: %v", eventID, err)
			}
			wantTrace := hex.EncodeToString(u[:])
			if ingest.traceID != wantTrace || deliver.traceID != wantTrace {
				t.Errorf("trace ids: ingest %q, deliver %q; want the event's %q", ingest.traceID, deliver.traceID, wantTrace)
			}
			if deliver.parent != ingest.spanID || ingest.parent != "" {
				t.Errorf("deliver's parent %q, ingest %q (its parent %q): want deliver a child of the root ingest span", deliver.parent, ingest.spanID, ingest.parent)
			}
			for _, n := range []string{"hookrelay.verify", "hookrelay.commit"} {
				if s := byName[n]; s.parent != ingest.spanID || s.traceID != wantTrace {
					t.Errorf("%s: trace %q parent %q, want a child of ingest span %q", n, s.traceID, s.parent, ingest.spanID)
				}
			}
			if ingest.attrs["hookrelay.outcome"] != "stored" || ingest.attrs["hookrelay.event_id"] != eventID ||
				ingest.attrs["hookrelay.provider_event_id"] != "evt_traced" || ingest.attrs["http.response.status_code"] != "200" {
				t.Errorf("ingest span attributes %v", ingest.attrs)
			}
			if deliver.attrs["hookrelay.destination"] != "sink" || deliver.attrs["hookrelay.outcome"] != "done" ||
				deliver.attrs["http.response.status_code"] != "200" {
				t.Errorf("deliver span attributes %v", deliver.attrs)
			}
			wantHeader := "00-" + wantTrace + "-" + deliver.spanID + "-01"
			if traceparent != wantHeader {
				t.Errorf("the destination got traceparent %q, want %q", traceparent, wantHeader)
			}
			rcv.mu.Lock()
			bad := rcv.bad
			rcv.mu.Unlock()
			if len(bad) > 0 {
				t.Errorf("the OTLP receiver refused %d requests: %v", len(bad), bad)
			}
			t.Logf("TRACES driver=%s spans=%d trace=%s traceparent=%s", driver.Name, len(spans), wantTrace, traceparent)

			// The same relay without OTEL_*: no traceparent, nothing exported.
			p.stop(t) // flushes its exporter
			before := len(rcv.received())
			quiet := startRelay(t, driver.URL(t), cfg, stripeEnv)
			req = hostileStripe(t, quiet, stripeEvent("evt_untraced", ""), nil)
			if status, _, body, err := hostileDo(http.DefaultClient, req); status != 200 || err != nil {
				t.Fatalf("webhook without traces: %d %s %v", status, body, err)
			}
			if tp := sink.next(t).Get("Traceparent"); tp != "" {
				t.Errorf("without OTEL_* the destination got traceparent %q", tp)
			}
			quiet.stop(t) // an exporter, had it one, would flush now
			if after := len(rcv.received()); after != before {
				t.Errorf("without OTEL_* %d more spans were exported", after-before)
			}
		})
	}
}
