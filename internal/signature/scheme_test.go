package signature

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNames(t *testing.T) {
	t.Parallel()
	want := []string{"stripe", "github", "shopify", "standard", "slack", "gitlab", "hmac", "none",
		"twilio", "paddle", "zoom", "meta", "discord", "sendgrid", "mailgun", "square", "linear", "intercom", "msgraph"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v; want %v", got, want)
	}
	for _, name := range want {
		o := minimalOptions(name)
		s, err := New(o)
		if err != nil || s.Name() != name {
			t.Errorf("New(%q) = %v, %v", name, s, err)
		}
	}
}

// minimalOptions are the least options the scheme name is built with.
func minimalOptions(name string) Options {
	o := Options{Scheme: name}
	switch name {
	case "hmac":
		o.HMAC.Header = "X-Signature"
	case "twilio", "square":
		o.PublicURL = "https://relay.example.com/webhooks/" + name
	}
	return o
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	hm := func(h HMACOptions) Options { return Options{Scheme: "hmac", HMAC: h} }
	tests := []struct {
		name    string
		opts    Options
		wantErr string // a piece of the message
	}{
		{"unknown scheme", Options{Scheme: "stripe2"}, `unknown scheme "stripe2"`},
		{"empty scheme", Options{}, "unknown scheme"},
		{"negative tolerance", Options{Scheme: "stripe", Tolerance: -time.Second}, "negative"},
		{"bad id field", Options{Scheme: "none", IDField: "data..id"}, "id field"},
		{"bad type field", Options{Scheme: "none", TypeField: "a b"}, "type field"},
		{"standard secret not base64", Options{Scheme: "standard", Secrets: []string{"whsec_%%%"}}, "secrets[0]"},
		{"hmac without header", hm(HMACOptions{}), "header is required"},
		{"hmac algorithm", hm(HMACOptions{Header: "X", Algorithm: "md5"}), `unknown hmac algorithm "md5"`},
		{"hmac encoding", hm(HMACOptions{Header: "X", Encoding: "base32"}), `unknown hmac encoding "base32"`},
		{"hmac template placeholder", hm(HMACOptions{Header: "X", SignedContent: "{nonce}.{body}"}), "bad placeholder"},
		{"hmac template unclosed", hm(HMACOptions{Header: "X", SignedContent: "{body"}), "bad placeholder"},
		{"hmac template stray brace", hm(HMACOptions{Header: "X", SignedContent: "}{body}"}), "bad placeholder"},
		{"hmac template without body", hm(HMACOptions{Header: "X", SignedContent: "static"}), "{body} exactly once"},
		{"hmac template body twice", hm(HMACOptions{Header: "X", SignedContent: "{body}{body}"}), "{body} exactly once"},
		{"hmac timestamp not in template", hm(HMACOptions{Header: "X", TimestampHeader: "T", SignedContent: "{body}"}), "lacks {timestamp}"},
		{"hmac template timestamp without header", hm(HMACOptions{Header: "X", SignedContent: "{timestamp}.{body}"}), "no timestamp header"},
		{"hmac template id without header", hm(HMACOptions{Header: "X", SignedContent: "{id}.{body}"}), "no id header"},
	}
	for _, tt := range tests {
		_, err := New(tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: New error = %v; want one containing %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestParseTemplate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want template
	}{
		{"{body}", template{{kind: partBody}}},
		{"{timestamp}.{body}", template{{kind: partTimestamp}, {text: "."}, {kind: partBody}}},
		{"v0:{id}:{timestamp}:{body}:end", template{
			{text: "v0:"}, {kind: partID}, {text: ":"}, {kind: partTimestamp}, {text: ":"}, {kind: partBody}, {text: ":end"},
		}},
	}
	for _, tt := range tests {
		got, err := parseTemplate(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("parseTemplate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseUnix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in string
		ok bool
	}{
		{"0", true},
		{"1700000000", true},
		{"999999999999", true},
		{"1000000000000", false}, // milliseconds are not seconds
		{"", false},
		{"-1", false},
		{"+1", false},
		{"1.0", false},
		{" 1", false},
		{"1e9", false},
	}
	for _, tt := range tests {
		if _, ok := parseUnix(tt.in); ok != tt.ok {
			t.Errorf("parseUnix(%q) ok = %v; want %v", tt.in, ok, tt.ok)
		}
	}
}
