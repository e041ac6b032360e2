package delivery

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Verdict is how a destination's answer to one delivery is read.
type Verdict struct {
	// Outcome is StatusDone, StatusSkipped or StatusFailed.
	Outcome store.DeliveryStatus
	// Reason says why a failed answer failed; empty otherwise.
	Reason string
	// RetryAfter is the wait the destination asked for with Retry-After
	// on a failure, 0 when none.
	RetryAfter time.Duration
}

// ReadAnswer reads a destination's answer, pushed to or forwarded by a pull
// consumer alike: a 2xx is done, or skipped when it carries
// "hookrelay-outcome: skipped"; a redirect is a failure, never followed;
// anything else is a failure, with the Retry-After it asks for read at now.
func ReadAnswer(status int, h http.Header, now time.Time) Verdict {
	switch {
	case status >= 200 && status < 300:
		if strings.EqualFold(strings.TrimSpace(h.Get(HeaderOutcome)), "skipped") {
			return Verdict{Outcome: store.StatusSkipped}
		}
		return Verdict{Outcome: store.StatusDone}
	case status >= 300 && status < 400:
		return Verdict{Outcome: store.StatusFailed, Reason: fmt.Sprintf("status %d: redirect not followed", status)}
	}
	return Verdict{Outcome: store.StatusFailed, Reason: fmt.Sprintf("status %d", status), RetryAfter: ParseRetryAfter(h.Get("Retry-After"), now)}
}

// NoRedirects is the CheckRedirect of the clients that post for hookrelay
// without a Sender — alerts, and listen's forwarding to a local server: a
// redirect is the answer, not an instruction, so it is never followed. A
// Sender's push goes to its transport, which follows none.
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
