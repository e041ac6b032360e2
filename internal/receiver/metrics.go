package receiver

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the receiver's Prometheus collectors.
type Metrics struct {
	received       *prometheus.CounterVec
	duration       *prometheus.HistogramVec
	slots          *prometheus.CounterVec
	inflight       prometheus.Gauge
	batchSize      prometheus.Histogram
	commitDuration prometheus.Histogram
	rejectsDropped prometheus.Counter
	lag            *prometheus.HistogramVec
	types          typeLabels
}

// NewMetrics registers the receiver's collectors with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookrelay_ingest_requests_total",
			Help: "Webhook requests by source, event type (the first 100 types of a source; later ones count as other) and outcome (stored, duplicate, rejected, handshake, error) and rejection reason.",
		}, []string{"source", "type", "outcome", "reason"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hookrelay_ingest_duration_seconds",
			Help:    "Time from request start to the answer, by source and outcome.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"source", "outcome"}),
		slots: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookrelay_ingest_secret_slot_total",
			Help: "Verified requests by source and the secret slot that matched; a slot at zero for long means its rotation can finish.",
		}, []string{"source", "slot"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hookrelay_ingest_inflight_requests",
			Help: "Ingest requests being handled now.",
		}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hookrelay_ingest_commit_batch_size",
			Help:    "Events per group commit.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
		commitDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "hookrelay_ingest_commit_duration_seconds",
			Help:    "Duration of one group commit transaction.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
		}),
		rejectsDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "hookrelay_rejections_unrecorded_total",
			Help: "Rejections counted but not written to the rejection record because their source exceeded its recording rate.",
		}),
		lag: newLagHistogram(),
	}
	reg.MustRegister(m.received, m.duration, m.slots, m.inflight, m.batchSize, m.commitDuration, m.rejectsDropped, m.lag)
	return m
}

// ObserveCommit records one group commit; it fits groupcommit.Options.Observe.
func (m *Metrics) ObserveCommit(size int, took time.Duration, _ error) {
	m.batchSize.Observe(float64(size))
	m.commitDuration.Observe(took.Seconds())
}

func (m *Metrics) observe(source, eventType, outcome, reason string, took time.Duration) {
	m.received.WithLabelValues(source, m.types.label(source, eventType), outcome, reason).Inc()
	m.duration.WithLabelValues(source, outcome).Observe(took.Seconds())
}

func (m *Metrics) observeSlot(source string, slot int) {
	m.slots.WithLabelValues(source, strconv.Itoa(slot)).Inc()
}
