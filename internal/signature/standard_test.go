package signature

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var standardCase = schemeCase{
	opts:        Options{Scheme: "standard"},
	secret:      whsecSecret,
	timestamped: true,
	required:    []string{"webhook-id", "webhook-timestamp", "webhook-signature"},
	malform: func(h http.Header) {
		h.Set("webhook-signature", strings.Replace(h.Get("webhook-signature"), "v1,", "v1a,", 1))
	},
	malformedErr: ErrMalformedSignature,
}

func TestStandardVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, standardCase)
}

// TestStandardVerifySvixHeaders runs the shared cases with the request's
// headers renamed to svix-*.
func TestStandardVerifySvixHeaders(t *testing.T) {
	t.Parallel()
	toSvix := func(h http.Header) {
		for _, n := range []string{"id", "timestamp", "signature"} {
			if v := h.Get("webhook-" + n); v != "" {
				h.Set("svix-"+n, v)
				h.Del("webhook-" + n)
			}
		}
	}
	svix := standardCase
	svix.required = []string{"svix-id", "svix-timestamp", "svix-signature"}
	svix.malform = func(h http.Header) {
		toSvix(h)
		h.Set("svix-signature", "v2,"+h.Get("svix-signature"))
	}
	for _, name := range svix.required {
		t.Run("missing "+name, func(t *testing.T) {
			t.Parallel()
			req := svix.signed(t, []string{"a"}, 0, spacedBody, testNow)
			toSvix(req.Header)
			if _, err := verify(t, svix.with("a"), req); err != nil {
				t.Fatalf("Verify with svix headers: %v", err)
			}
			req.Header.Del(name)
			if _, err := verify(t, svix.with("a"), req); !errors.Is(err, ErrMissingSignature) {
				t.Errorf("Verify = %v; want ErrMissingSignature", err)
			}
		})
	}
}

func TestStandardVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "standard"}, map[string]error{
		"standardwebhooks-invalid-signature":   ErrMismatch,
		"standardwebhooks-too-old":             ErrStale,
		"standardwebhooks-too-new":             ErrStale,
		"standardwebhooks-tampered-id":         ErrMismatch,
		"standardwebhooks-noncanonical-base64": ErrMismatch,
	}, nil, "standard-webhooks", "svix")
}

func TestStandardSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		secret string
		ok     bool
	}{
		{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true},
		{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true}, // the official libraries accept it unprefixed
		{"whsec_not*base64", false},
		{"whsec_", false},
		{"plain text secret", false},
	}
	for _, tt := range tests {
		_, err := New(Options{Scheme: "standard", Secrets: []string{"", tt.secret}})
		if (err == nil) != tt.ok {
			t.Errorf("New with secret %q: %v; want ok %v", tt.secret, err, tt.ok)
		}
		key := strings.TrimPrefix(tt.secret, "whsec_")
		if err != nil && ((key != "" && strings.Contains(err.Error(), key)) || !strings.Contains(err.Error(), "secrets[1]")) {
			t.Errorf("error %q should name the slot and not show the secret", err)
		}
	}
}

func TestParseStandardSignatures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header string
		want   []string
	}{
		{"v1,abc=", []string{"abc="}},
		{"v1,abc= v1,def=", []string{"abc=", "def="}},
		{"v1a,xyz v1,abc= v2,def", []string{"abc="}},
		{"  v1,abc=   v1,def=  ", []string{"abc=", "def="}},
		{"v1,", []string{""}},
		{"v1", nil},
		{"v1abc", nil},
		{"abc=", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := parseStandardSignatures(tt.header, nil); !slices.Equal(got, tt.want) {
			t.Errorf("parse(%q) = %q; want %q", tt.header, got, tt.want)
		}
	}
}

func TestStandardMalformedTimestamp(t *testing.T) {
	t.Parallel()
	req := standardCase.signed(t, []string{"a"}, 0, spacedBody, testNow)
	for _, ts := range []string{"soon", "1700000000.5", "-1700000000", "1700000000000000"} {
		req.Header.Set("webhook-timestamp", ts)
		if _, err := verify(t, standardCase.with("a"), req); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("timestamp %q: %v; want ErrMalformedSignature", ts, err)
		}
	}
}

func TestStandardIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "standard"}
	at := time.Date(2022, 11, 3, 20, 26, 10, 729000000, time.UTC)
	body := `{"type":"invoice.paid","timestamp":"2022-11-03T20:26:10.729Z","data":{}}`
	runIdentityCases(t, []identityCase{
		{name: "webhook-id", opts: o, body: body, header: header("webhook-id", "msg_1"),
			want: Identity{ID: "msg_1", Origin: store.IDFromHeader, Type: "invoice.paid", OccurredAt: at}},
		{name: "svix-id", opts: o, body: body, header: header("svix-id", "msg_2", "svix-signature", "v1,x"),
			want: Identity{ID: "msg_2", Origin: store.IDFromHeader, Type: "invoice.paid", OccurredAt: at}},
		{name: "no type or timestamp", opts: o, body: `{}`, header: header("webhook-id", "msg_1"),
			want: Identity{ID: "msg_1", Origin: store.IDFromHeader}},
		{name: "no id", opts: o, body: body, wantErr: ErrMissingIdentity},
	})
}

// FuzzStandardHeader checks that the parser never panics and that the
// signatures it returns are v1 entries of the header that parse the same
// once written back.
func FuzzStandardHeader(f *testing.F) {
	f.Add("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	f.Fuzz(func(t *testing.T, header string) {
		sigs := parseStandardSignatures(header, nil)
		var again []string
		for _, s := range sigs {
			if !strings.Contains(header, "v1,"+s) || strings.ContainsAny(s, " \t\r\n") {
				t.Fatalf("signature %q is not a v1 entry of %q", s, header)
			}
			again = append(again, "v1,"+s)
		}
		if got := parseStandardSignatures(strings.Join(again, " "), nil); !slices.Equal(got, sigs) {
			t.Fatalf("round trip of %q = %q; want %q", header, got, sigs)
		}
	})
}
