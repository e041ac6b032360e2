package receiver

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Log keys used by the receiver.
const (
	logSource          = "source"
	logEventID         = "event_id"
	logProviderEventID = "provider_event_id"
	logType            = "type"
	logOutcome         = "outcome"
	logStatus          = "status"
	logReason          = "reason"
	logDurationMS      = "duration_ms"
	logSlot            = "slot"
	logRemote          = "remote_addr"
	logBodySize        = "body_size"
	logSkewSeconds     = "skew_seconds"
	logError           = "error"
)

// retryAfterSeconds is what a provider is asked to wait after a 503.
const retryAfterSeconds = "5"

// respond writes the answer, then logs the request and counts it.
func (rc *Receiver) respond(w http.ResponseWriter, r *http.Request, src *Source, o outcome, start time.Time) {
	a := answerFor(o.err)
	traceAnswer(r.Context(), o, a)
	h := w.Header()
	switch {
	case o.handshake != nil:
		h.Set("Content-Type", o.handshake.ContentType)
		// A handshake echoes what the caller sent; no browser may read it
		// as anything but its declared type.
		h.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(o.handshake.Body)
	case o.err == nil:
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		if o.inserted {
			_, _ = w.Write([]byte(`{"status":"stored"}`))
		} else {
			_, _ = w.Write([]byte(`{"status":"duplicate"}`))
		}
	default:
		if a.retry {
			h.Set("Retry-After", retryAfterSeconds)
		}
		h.Set("Content-Type", "application/json")
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(`{"error":"` + a.reason + `"}`))
	}

	took := time.Since(start)
	if src == nil {
		// The source name is the caller's text: keep it out of metric
		// labels, where it could grow the series without bound.
		rc.metrics.observe("", "", "rejected", a.reason, took)
		if rc.refusalLogs.Allow() {
			rc.logger.LogAttrs(r.Context(), slog.LevelInfo, "webhook refused",
				slog.Int(logStatus, a.status), slog.String(logReason, a.reason), slog.String(logRemote, r.RemoteAddr))
		}
		return
	}
	switch {
	case o.handshake != nil:
		rc.metrics.observe(src.Name, "", "handshake", "", took)
		if !rc.handshakeLogs.Allow() {
			return // counted in the metrics
		}
		rc.logger.LogAttrs(r.Context(), slog.LevelInfo, "webhook handshake answered",
			slog.String(logSource, src.Name), slog.Float64(logDurationMS, ms(took)))
	case o.err == nil:
		outcome := "stored"
		if o.inserted {
			rc.tally.count(src.Name, received)
		} else {
			outcome = "duplicate"
			rc.tally.count(src.Name, duplicates)
		}
		rc.metrics.observe(src.Name, o.event.Type, outcome, "", took)
		if o.event.SignatureSlot != store.NoSlot {
			rc.metrics.observeSlot(src.Name, o.event.SignatureSlot)
			rc.slotUse.verified(src.Name, src.fingerprint(o.event.SignatureSlot), start)
		}
		if o.inserted {
			rc.metrics.observeLag(src.Name, o.event)
		}
		eventID := o.event.ID
		if !o.inserted {
			// The id was minted for this request and never stored.
			eventID = ""
		}
		rc.logger.LogAttrs(r.Context(), slog.LevelInfo, "webhook received",
			slog.String(logSource, src.Name),
			slog.String(logEventID, eventID),
			slog.String(logProviderEventID, o.event.ProviderEventID),
			slog.String(logType, o.event.Type),
			slog.String(logOutcome, outcome),
			slog.Int(logSlot, o.event.SignatureSlot),
			slog.Float64(logDurationMS, ms(took)))
	case a.isVerificationFailure():
		rc.tally.count(src.Name, rejected)
		rc.rejected.rejected(src.Name, a.reason, start)
		rc.metrics.observe(src.Name, "", "rejected", a.reason, took)
		rc.reject(r, src, a, o, start, took)
	case a.reason == "upload_too_slow":
		// A client's doing, like a rejection, but nothing to verify was
		// read: counted, and logged within the refusal rate.
		rc.metrics.observe(src.Name, "", "rejected", a.reason, took)
		if rc.refusalLogs.Allow() {
			rc.logger.LogAttrs(r.Context(), slog.LevelWarn, "webhook refused",
				slog.String(logSource, src.Name), slog.Int(logStatus, a.status), slog.String(logReason, a.reason),
				slog.String(logRemote, r.RemoteAddr), slog.Float64(logDurationMS, ms(took)))
		}
	default:
		rc.metrics.observe(src.Name, "", "error", a.reason, took)
		if !rc.errorLogs.Allow() {
			return // counted in the metrics; the log already says why
		}
		rc.logger.LogAttrs(r.Context(), slog.LevelError, "webhook not stored",
			slog.String(logSource, src.Name),
			slog.Int(logStatus, a.status),
			slog.String(logReason, a.reason),
			slog.String(logError, o.err.Error()),
			slog.Float64(logDurationMS, ms(took)))
	}
}

// reject records and logs a verification failure, within the source's
// recording rate.
func (rc *Receiver) reject(r *http.Request, src *Source, a answer, o outcome, start time.Time, took time.Duration) {
	if !rc.rejections.Allow(src.Name) {
		return
	}
	rej := store.Rejection{
		At:         start.UTC(),
		Source:     src.Name,
		Reason:     a.reason,
		RemoteAddr: r.RemoteAddr,
		BodySize:   o.bodySize,
		Skew:       o.verified.Skew,
		HasSkew:    o.verified.HasTimestamp,
	}
	rc.rejections.Record(rej)
	attrs := []slog.Attr{
		slog.String(logSource, src.Name),
		slog.Int(logStatus, a.status),
		slog.String(logReason, a.reason),
		slog.String(logRemote, r.RemoteAddr),
		slog.Int64(logBodySize, o.bodySize),
		slog.Float64(logDurationMS, ms(took)),
	}
	if rej.HasSkew {
		attrs = append(attrs, slog.Float64(logSkewSeconds, rej.Skew.Seconds()))
	}
	rc.logger.LogAttrs(r.Context(), slog.LevelWarn, "webhook rejected", attrs...)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
