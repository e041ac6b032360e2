package relay

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/receiver"
)

// ingestSignals are the receiver's side of rotation status and alerting:
// the secret-slot counter and, with signature-failure alerts, the
// rejection counter the fleet's runner reads (see startRunner).
type ingestSignals struct {
	slots    *receiver.SlotCounter
	rejected *receiver.RejectionCounter
}

// newIngestSignals builds the slot counter and, when the config asks for
// signature-failure alerts, the rejection counter.
func (r *Relay) newIngestSignals() *ingestSignals {
	s := &ingestSignals{slots: receiver.NewSlotCounter(r.store, r.logger)}
	f := r.cfg.Alerts.SignatureFailures
	if f.Threshold() > 0 && r.cfg.Alerts.URL != "" {
		s.rejected = receiver.NewRejectionCounter(r.store, time.Duration(f.Window), r.logger)
	}
	return s
}

// close writes the last slot and rejection counts.
func (s *ingestSignals) close() {
	if s == nil {
		return
	}
	s.slots.Close()
	if s.rejected != nil {
		s.rejected.Close()
	}
}
