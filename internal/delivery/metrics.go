package delivery

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Alert outcomes counted by hookrelay_dead_letter_alerts_total.
const (
	alertSent    = "sent"
	alertFailed  = "failed"  // every try failed
	alertDropped = "dropped" // the alert queue was full
)

// metrics are the Prometheus collectors of the delivery engine and of the
// Puller; registered on one registry, they share their series.
//
// The backlog and oldest-pending-age gauges per destination are not here:
// they come from the store's stats query, which the admin API's stats
// endpoint also serves, and will be exported with it.
type metrics struct {
	leases     *prometheus.CounterVec
	deliveries *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	dead       *prometheus.CounterVec
	alerts     *prometheus.CounterVec
}

// newMetrics registers the engine's collectors with reg, which may be nil,
// and sets every destination's series to zero so that they exist before the
// first delivery.
func newMetrics(reg prometheus.Registerer, destinations []string) (*metrics, error) {
	m := &metrics{
		leases: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookrelay_delivery_leases_total",
			Help: "Deliveries of push destinations leased for a push, by destination and how: at ingest, by the node that stored the event, or by a claim.",
		}, []string{"destination", "how"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookrelay_deliveries_total",
			Help: "Delivery attempts recorded, pushed or acknowledged by a pull consumer, by destination and the delivery's resulting status (done, skipped, failed, dead).",
		}, []string{"destination", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "hookrelay_delivery_attempt_duration_seconds",
			Help:    "Duration of one push attempt, from request start to the answer read, by destination.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"destination"}),
		dead: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookrelay_dead_letters_total",
			Help: "Deliveries that went dead after their last attempt, by destination.",
		}, []string{"destination"}),
		alerts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hookrelay_dead_letter_alerts_total",
			Help: "Dead-letter alerts posted to alerts.url, by outcome (sent, failed, dropped).",
		}, []string{"outcome"}),
	}
	if reg != nil {
		// A reloaded engine registers again: it adopts the collectors of
		// the engine it replaces, so the counts carry on.
		var err error
		if m.leases, err = adopt(reg, m.leases); err != nil {
			return nil, err
		}
		if m.deliveries, err = adopt(reg, m.deliveries); err != nil {
			return nil, err
		}
		if m.duration, err = adopt(reg, m.duration); err != nil {
			return nil, err
		}
		if m.dead, err = adopt(reg, m.dead); err != nil {
			return nil, err
		}
		if m.alerts, err = adopt(reg, m.alerts); err != nil {
			return nil, err
		}
	}
	for _, d := range destinations {
		m.track(d)
		m.duration.WithLabelValues(d)
	}
	for _, o := range []string{alertSent, alertFailed, alertDropped} {
		m.alerts.WithLabelValues(o)
	}
	return m, nil
}

// track sets a destination's outcome and dead-letter series to zero, so
// that they exist before its first outcome. A pull destination has no
// attempt duration: its consumer makes the attempt.
func (m *metrics) track(destination string) {
	for _, s := range []store.DeliveryStatus{store.StatusDone, store.StatusSkipped, store.StatusFailed, store.StatusDead} {
		m.deliveries.WithLabelValues(destination, string(s))
	}
	m.dead.WithLabelValues(destination)
}

// adopt registers c with reg, or returns the collector registered before
// under the same description.
func adopt[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, fmt.Errorf("register delivery metrics: %w", err)
}

// How a push delivery was leased, the how label of
// hookrelay_delivery_leases_total.
const (
	leasedAtIngest = "ingest"
	leasedByClaim  = "claim"
)

// trackLeases sets a push destination's lease series to zero.
func (m *metrics) trackLeases(destination string) {
	for _, how := range []string{leasedAtIngest, leasedByClaim} {
		m.leases.WithLabelValues(destination, how)
	}
}

// leased counts n deliveries of destination leased the given way.
func (m *metrics) leased(destination, how string, n int) {
	if n > 0 {
		m.leases.WithLabelValues(destination, how).Add(float64(n))
	}
}

// attempted records how long one attempt took, whether or not its outcome
// could be recorded.
func (m *metrics) attempted(destination string, took time.Duration) {
	m.duration.WithLabelValues(destination).Observe(took.Seconds())
}

// recorded counts one attempt whose outcome the store recorded.
func (m *metrics) recorded(destination string, status store.DeliveryStatus) {
	m.deliveries.WithLabelValues(destination, string(status)).Inc()
}
