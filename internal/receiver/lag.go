package receiver

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/store"
)

// newLagHistogram is the provider's backlog as this relay sees it: the
// receive time minus the time the provider says the event happened, for
// schemes that carry one. It grows while a provider retries after an
// outage, before it recovers.
func newLagHistogram() *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "hookrelay_provider_lag_seconds",
		Help:    "Receive time minus the provider's event time, by source, for stored events whose scheme gives one; negative lags (clock skew) count as 0.",
		Buckets: []float64{.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600, 3 * 24 * 3600},
	}, []string{"source"})
}

// observeLag records one stored event's provider lag, when it has one.
func (m *Metrics) observeLag(source string, e store.Event) {
	if e.OccurredAt.IsZero() {
		return
	}
	m.lag.WithLabelValues(source).Observe(max(e.ReceivedAt.Sub(e.OccurredAt).Seconds(), 0))
}
