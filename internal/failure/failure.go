// Package failure names why a delivery failed, from what its last attempt
// recorded: the response's status code, or, when no response came, the
// error text the delivery engine, a pull consumer or a handler wrote (see
// internal/delivery's sender and transportError, and listen's forwarding).
//
// Classify is the one definition. The store records the kind of each
// outcome on its delivery (failure_kind) as it records the outcome, and
// groups failures by it, so a change to the rules classifies the outcomes
// recorded after it. Migration 0024 classified the failures stored before
// it with an SQL CASE of the rules as they were then; a test of each
// driver holds that CASE to Classify, and fails when the rules change
// until a migration classifies the stored failures again.
package failure

import "strings"

// Kind is a kind of failure.
type Kind string

// The kinds of failure, in the order a view lists them.
const (
	Status5xx  Kind = "5xx"        // the destination answered 500–599
	Status4xx  Kind = "4xx"        // the destination answered 400–499
	Redirect   Kind = "3xx"        // the destination answered a redirect, never followed
	Timeout    Kind = "timeout"    // no answer within the destination's timeout
	DNS        Kind = "dns"        // its host name did not resolve
	TLS        Kind = "tls"        // the TLS handshake failed: certificate, protocol
	Refused    Kind = "refused"    // nothing listens at its address
	Connection Kind = "connection" // the connection broke: reset, closed, unreachable
	Signature  Kind = "signature"  // hookrelay could not sign the delivery: the destination's secret
	Handler    Kind = "handler"    // a handler destination's code failed or panicked
	Other      Kind = "other"      // anything else: another status code, an unknown error
)

// Kinds lists every kind in display order.
var Kinds = []Kind{Status5xx, Status4xx, Redirect, Timeout, DNS, TLS, Refused, Connection, Signature, Handler, Other}

// CodeRule files a status code within [Min, Max] under Kind.
type CodeRule struct {
	Kind     Kind
	Min, Max int
}

// TextRule files an error text that contains any of Texts (byte for
// byte, case included) under Kind.
type TextRule struct {
	Kind  Kind
	Texts []string
}

// CodeRules classify an attempt that got a response; a code that none
// matches is Other.
var CodeRules = []CodeRule{
	{Status5xx, 500, 599},
	{Status4xx, 400, 499},
	{Redirect, 300, 399},
}

// TextRules classify an attempt that got no response, by its error text,
// the first rule that matches winning; a text that none matches is Other.
// The texts are those Go's net/http, net and crypto/tls put in the errors
// a push or a forward gets, and those hookrelay writes itself. A handler's
// panic comes first, as its text is the panic's value, and a timeout
// before what timed out (a lookup, a handshake).
var TextRules = []TextRule{
	{Handler, []string{"handler panicked: "}},
	{Signature, []string{"sign delivery: "}},
	{Timeout, []string{"timeout after ", "no answer within ", "context deadline exceeded", "i/o timeout", "TLS handshake timeout"}},
	{DNS, []string{": lookup ", "no such host", "server misbehaving"}},
	{TLS, []string{"tls: ", "x509: ", "server gave HTTP response to HTTPS client"}},
	{Refused, []string{"connection refused"}},
	{Connection, []string{"connection reset", "broken pipe", "EOF", "no route to host", "network is unreachable",
		"host is down", "server closed idle connection", "transport connection broken", "use of closed network connection"}},
}

// Classify returns the kind of a failed attempt: by statusCode when it got
// a response (statusCode is not 0), else by its error text.
func Classify(statusCode int, text string) Kind {
	if statusCode != 0 {
		for _, r := range CodeRules {
			if statusCode >= r.Min && statusCode <= r.Max {
				return r.Kind
			}
		}
		return Other
	}
	for _, r := range TextRules {
		for _, s := range r.Texts {
			if strings.Contains(text, s) {
				return r.Kind
			}
		}
	}
	return Other
}

// OfHandler returns the kind of a failure of a handler destination that
// was classified k: a handler's error is its own text, so what no rule
// recognises in it is the handler's failure.
func OfHandler(k Kind) Kind {
	if k == Other {
		return Handler
	}
	return k
}

// Label is how a person reads the kind: "HTTP 5xx", "Timeout".
func (k Kind) Label() string {
	switch k {
	case Status5xx, Status4xx, Redirect:
		return "HTTP " + string(k)
	case Timeout:
		return "Timeout"
	case DNS:
		return "DNS"
	case TLS:
		return "TLS"
	case Refused:
		return "Connection refused"
	case Connection:
		return "Connection lost"
	case Signature:
		return "Signing"
	case Handler:
		return "Handler error"
	}
	return "Other"
}

// Known reports whether k is one of Kinds.
func (k Kind) Known() bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}
