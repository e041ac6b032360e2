package delivery

import "log/slog"

// reportDead reports a delivery that went dead, pushed or pulled alike: an
// error log line, the dead-letter metric and, when alerts is not nil, an
// alert posted to alerts.url. None of them carries the payload.
func reportDead(logger *slog.Logger, m *metrics, alerts *alerter, a Alert) {
	logger.Error("delivery dead",
		keyDeliveryID, a.DeliveryID, keyEventID, a.EventID, keyDestination, a.Destination,
		keyAttempts, a.Attempts, keyStatusCode, a.LastStatusCode, keyError, a.LastError)
	m.dead.WithLabelValues(a.Destination).Inc()
	if alerts != nil {
		alerts.enqueue(a)
	}
}
