package delivery

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Headers a destination receives with every delivery, besides the Standard
// Webhooks ones and the original Content-Type.
const (
	HeaderSource     = "Hookrelay-Source"
	HeaderEventType  = "Hookrelay-Event-Type"
	HeaderEventID    = "Hookrelay-Event-Id" // the provider's event id
	HeaderAttempt    = "Hookrelay-Attempt"
	HeaderOccurredAt = "Hookrelay-Occurred-At"
	HeaderReplay     = "Hookrelay-Replay"
	// HeaderOutcome is read from the destination's answer: "skipped" on a
	// 2xx marks the delivery skipped rather than done.
	HeaderOutcome = "Hookrelay-Outcome"
)

// The Standard Webhooks headers, signed with the destination's secret.
const (
	HeaderWebhookID        = "Webhook-Id"
	HeaderWebhookTimestamp = "Webhook-Timestamp"
	HeaderWebhookSignature = "Webhook-Signature"
)

// Target is where and how one destination receives deliveries.
type Target struct {
	// URL is where push deliveries are POSTed.
	URL string
	// Secret is the destination's whsec_ signing secret.
	Secret string
	// ForwardHeaders adds the provider's original headers.
	ForwardHeaders bool
}

// Headers returns the headers the destination receives with delivery d of
// ev, signed at now: the original Content-Type, the provider's headers when
// the target forwards them, the Standard Webhooks headers and the
// hookrelay-* headers. webhook-id is the event's hookrelay id, the same for
// every attempt and replay. Headers is what a push sends and what a pull
// consumer is handed.
func (t Target) Headers(ev store.Event, d store.Delivery, now time.Time) (http.Header, error) {
	sig, err := signature.SignStandard(t.Secret, ev.ID, now, ev.Body)
	if err != nil {
		return nil, fmt.Errorf("sign delivery: %w", err)
	}
	return t.signedHeaders(ev, d, now, sig), nil
}

// signedHeaders returns Headers with the signature sig of (ev, now).
func (t Target) signedHeaders(ev store.Event, d store.Delivery, now time.Time, sig string) http.Header {
	h := make(http.Header, 12+len(ev.Headers))
	if t.ForwardHeaders {
		forwardHeaders(h, ev.Headers)
	}
	setHeader(h, "Content-Type", ev.ContentType)
	h.Set(HeaderWebhookID, ev.ID)
	h.Set(HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderWebhookSignature, sig)
	setHeader(h, HeaderSource, ev.Source)
	setHeader(h, HeaderEventType, ev.Type)
	setHeader(h, HeaderEventID, ev.ProviderEventID)
	h.Set(HeaderAttempt, strconv.Itoa(d.Attempts))
	if !ev.OccurredAt.IsZero() {
		h.Set(HeaderOccurredAt, ev.OccurredAt.UTC().Format(time.RFC3339))
	}
	h.Set(HeaderReplay, strconv.Itoa(d.ReplayCount))
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", "hookrelay")
	}
	return h
}

// request returns the POST of ev's raw body to the target's URL with
// headers h.
func (t Target) request(ctx context.Context, ev store.Event, h http.Header) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(ev.Body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header = h
	return req, nil
}

// notForwarded are provider headers a destination never receives: hop-by-hop
// headers, which belong to the provider's connection, and headers that
// describe the request hookrelay makes rather than the one it received.
var notForwarded = map[string]bool{
	"Connection":          true,
	"Keep-Alive":          true,
	"Proxy-Authenticate":  true,
	"Proxy-Authorization": true,
	"Proxy-Connection":    true,
	"Te":                  true,
	"Trailer":             true,
	"Transfer-Encoding":   true,
	"Upgrade":             true,
	"Host":                true,
	"Content-Length":      true,
	"Content-Type":        true, // set from the event itself
	"Expect":              true,
}

// reservedPrefixes are the header namespaces hookrelay signs with: its own,
// Standard Webhooks', and Svix's, which Svix libraries read before the
// webhook-* names. A provider's header there never reaches a destination.
var reservedPrefixes = []string{"Hookrelay-", "Webhook-", "Svix-"}

// forwardHeaders copies the provider's stored headers into h, leaving out
// notForwarded ones, headers the provider named in Connection, the reserved
// namespaces (hookrelay sets those), and any name or value that is not a
// valid header: a stored value can never add a line to the request. Names
// are compared with "_" read as "-", as CGI, WSGI and Rack fold them, so
// that "Webhook_Signature" cannot stand in for "Webhook-Signature".
func forwardHeaders(h http.Header, stored map[string][]string) {
	hop := map[string]bool{}
	for _, v := range stored["Connection"] {
		for name := range strings.SplitSeq(v, ",") {
			hop[foldHeaderName(strings.TrimSpace(name))] = true
		}
	}
	for k, vs := range stored {
		if !validHeaderName(k) {
			continue
		}
		k = http.CanonicalHeaderKey(k)
		if folded := foldHeaderName(k); notForwarded[folded] || hop[folded] || reserved(folded) {
			continue
		}
		for _, v := range vs {
			if validHeaderValue(v) {
				h.Add(k, v)
			}
		}
	}
}

// foldHeaderName returns the canonical form of name with every "_" read as
// "-".
func foldHeaderName(name string) string {
	return http.CanonicalHeaderKey(strings.ReplaceAll(name, "_", "-"))
}

// reserved reports whether a folded header name is in a namespace hookrelay
// signs with.
func reserved(folded string) bool {
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(folded, p) {
			return true
		}
	}
	return false
}

// setHeader sets a header whose value comes from stored data, dropping it
// when the value could not be sent as is.
func setHeader(h http.Header, k, v string) {
	if v == "" || !validHeaderValue(v) {
		h.Del(k)
		return
	}
	h.Set(k, v)
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s holds no control character other than
// horizontal tab: no CR, LF or NUL that could end the line or the header
// block.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
