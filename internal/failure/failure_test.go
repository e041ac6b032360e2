package failure_test

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/failure"
)

// TestClassify files what deliveries record — the texts Go's HTTP
// transport and hookrelay write — under their kinds.
func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code int
		text string
		want failure.Kind
	}{
		{503, "status 503", failure.Status5xx},
		{500, "status 500", failure.Status5xx},
		{599, "status 599", failure.Status5xx},
		{404, "status 404", failure.Status4xx},
		{401, "status 401", failure.Status4xx},
		{429, "status 429", failure.Status4xx},
		{301, "status 301: redirect not followed", failure.Redirect},
		{308, "status 308: redirect not followed", failure.Redirect},
		{101, "status 101", failure.Other},
		{600, "status 600", failure.Other},
		// The code decides, whatever a consumer's ack says besides.
		{502, "dial tcp 10.0.0.7:443: connect: connection refused", failure.Status5xx},

		{0, "timeout after 10s", failure.Timeout},
		{0, "no answer within 30s", failure.Timeout},
		{0, "context deadline exceeded", failure.Timeout},
		{0, "read tcp 10.0.0.1:5000->10.0.0.7:443: i/o timeout", failure.Timeout},
		{0, "net/http: TLS handshake timeout", failure.Timeout},

		{0, "dial tcp: lookup hooks.invalid on 127.0.0.53:53: no such host", failure.DNS},
		{0, "dial tcp: lookup api.example.com on 10.0.0.2:53: server misbehaving", failure.DNS},
		// A resolver that cannot be reached is a lookup that failed, not
		// the destination refusing.
		{0, "dial tcp: lookup hooks.internal on 127.0.0.53:53: read udp 127.0.0.1:39001->127.0.0.53:53: read: connection refused", failure.DNS},

		{0, "tls: failed to verify certificate: x509: certificate signed by unknown authority", failure.TLS},
		{0, "tls: failed to verify certificate: x509: certificate is valid for a.example, not b.example", failure.TLS},
		{0, "remote error: tls: handshake failure", failure.TLS},
		{0, "tls: first record does not look like a TLS handshake", failure.TLS},
		{0, "http: server gave HTTP response to HTTPS client", failure.TLS},

		{0, "dial tcp 127.0.0.1:9: connect: connection refused", failure.Refused},
		{0, "dial tcp [::1]:9: connect: connection refused", failure.Refused},

		{0, "read tcp 127.0.0.1:50000->127.0.0.1:8080: read: connection reset by peer", failure.Connection},
		{0, "EOF", failure.Connection},
		{0, "unexpected EOF", failure.Connection},
		{0, "write tcp 127.0.0.1:50000->127.0.0.1:8080: write: broken pipe", failure.Connection},
		{0, "dial tcp 10.9.9.9:443: connect: no route to host", failure.Connection},
		{0, "dial tcp 10.9.9.9:443: connect: network is unreachable", failure.Connection},
		{0, `net/http: HTTP/1.x transport connection broken: malformed HTTP response "hello"`, failure.Connection},
		{0, "http: server closed idle connection", failure.Connection},

		{0, "sign delivery: signature: secret slot 0: illegal base64 data at input byte 4", failure.Signature},

		{0, "handler panicked: runtime error: index out of range [3] with length 2", failure.Handler},
		// A panic's value may read like anything else: the panic decides.
		{0, "handler panicked: dial tcp 127.0.0.1:9: connect: connection refused", failure.Handler},

		{0, "", failure.Other},
		{0, "order 42 not found", failure.Other},
		{0, "the relay sent a body that is not base64", failure.Other},
		// Texts are matched as they are stored: Go writes them in lower case.
		{0, "Connection Refused", failure.Other},
		{0, "TIMEOUT AFTER 10S", failure.Other},
	}
	for _, c := range cases {
		if got := failure.Classify(c.code, c.text); got != c.want {
			t.Errorf("Classify(%d, %q) = %s, want %s", c.code, c.text, got, c.want)
		}
	}
}

// TestOfHandler files a handler's unrecognised error under Handler and
// keeps what a rule recognised.
func TestOfHandler(t *testing.T) {
	t.Parallel()
	for k, want := range map[failure.Kind]failure.Kind{
		failure.Other:     failure.Handler,
		failure.Timeout:   failure.Timeout,
		failure.Handler:   failure.Handler,
		failure.Status5xx: failure.Status5xx,
	} {
		if got := failure.OfHandler(k); got != want {
			t.Errorf("OfHandler(%s) = %s, want %s", k, got, want)
		}
	}
}

// TestRulesAreKinds checks that every rule files under a listed kind, with
// a label of its own, and that no text rule is empty (it would match
// every error) or holds a quote (the store writes the texts into SQL).
func TestRulesAreKinds(t *testing.T) {
	t.Parallel()
	labels := map[string]failure.Kind{}
	for _, k := range failure.Kinds {
		if prev, dup := labels[k.Label()]; dup {
			t.Errorf("%s and %s share the label %q", prev, k, k.Label())
		}
		labels[k.Label()] = k
	}
	for _, r := range failure.CodeRules {
		if !r.Kind.Known() || r.Min > r.Max || r.Min < 1 {
			t.Errorf("code rule %+v", r)
		}
	}
	for _, r := range failure.TextRules {
		if !r.Kind.Known() || len(r.Texts) == 0 {
			t.Errorf("text rule %+v", r)
		}
		for _, s := range r.Texts {
			for _, c := range []byte(s) {
				if c < ' ' || c > '~' || c == '\'' || c == '\\' {
					t.Errorf("rule %s: text %q holds %q: texts are printable ASCII without quotes", r.Kind, s, c)
				}
			}
			if s == "" {
				t.Errorf("rule %s has an empty text", r.Kind)
			}
		}
	}
	if failure.Kind("nope").Known() {
		t.Errorf("an unknown kind is Known")
	}
}
