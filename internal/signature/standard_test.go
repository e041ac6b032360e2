package signature

import (
	"crypto/ed25519"
	"encoding/base64"
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
		h.Set("webhook-signature", strings.Replace(h.Get("webhook-signature"), "v1,", "v2,", 1))
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
		header     string
		want, asym []string
	}{
		{"v1,abc=", []string{"abc="}, nil},
		{"v1,abc= v1,def=", []string{"abc=", "def="}, nil},
		{"v1a,xyz v1,abc= v2,def", []string{"abc="}, []string{"xyz"}},
		{"  v1,abc=   v1,def=  ", []string{"abc=", "def="}, nil},
		{"v1,", []string{""}, nil},
		{"v1a,k v1a,l", nil, []string{"k", "l"}},
		{"v1", nil, nil},
		{"v1abc", nil, nil},
		{"abc=", nil, nil},
		{"", nil, nil},
		{strings.Repeat("v1,a ", maxSignatures+1), nil, nil},
	}
	for _, tt := range tests {
		got, asym, err := parseStandardSignatures(tt.header, nil, nil)
		if !slices.Equal(got, tt.want) || !slices.Equal(asym, tt.asym) {
			t.Errorf("parse(%q) = %q, %q; want %q, %q", tt.header, got, asym, tt.want, tt.asym)
		}
		if (err != nil) != (tt.want == nil && tt.asym == nil) || (err != nil && !errors.Is(err, ErrMalformedSignature)) {
			t.Errorf("parse(%q) error %v", tt.header, err)
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
		sigs, _, err := parseStandardSignatures(header, nil, nil)
		if err != nil {
			return
		}
		var again []string
		for _, s := range sigs {
			if !strings.Contains(header, "v1,"+s) || strings.ContainsAny(s, " \t\r\n") {
				t.Fatalf("signature %q is not a v1 entry of %q", s, header)
			}
			again = append(again, "v1,"+s)
		}
		if len(again) == 0 {
			return
		}
		if got, _, _ := parseStandardSignatures(strings.Join(again, " "), nil, nil); !slices.Equal(got, sigs) {
			t.Fatalf("round trip of %q = %q; want %q", header, got, sigs)
		}
	})
}

var standardV1aCase = schemeCase{
	opts:        Options{Scheme: "standard"},
	secret:      plainSecret,
	publicKey:   whpkKey,
	timestamped: true,
	required:    []string{"webhook-id", "webhook-timestamp", "webhook-signature"},
	malform: func(h http.Header) {
		h.Set("webhook-signature", strings.Replace(h.Get("webhook-signature"), "v1a,", "v2,", 1))
	},
	malformedErr: ErrMalformedSignature,
}

func TestStandardV1aVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, standardV1aCase)
}

// TestStandardV1aVector verifies the Standard Webhooks Go library's
// asymmetric vector, and signs it again from its seed: Ed25519 is
// deterministic, so the signature must be the same.
func TestStandardV1aVector(t *testing.T) {
	t.Parallel()
	runVectorsWith(t, func(v vector, o *Options, _ *Request) { o.PublicKeys = []string{v.Secret} },
		Options{Scheme: "standard"}, nil, nil, "standard-webhooks-asymmetric")
	v := vectorsOf(t, "standard-webhooks-asymmetric")[0]
	seed, err := base64.StdEncoding.DecodeString(v.SigningPrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Sign(Options{Scheme: "standard", PublicKeys: []string{v.Secret}}, 0, Message{
		ID: v.Headers["webhook-id"], Body: []byte(v.Body), Now: time.Unix(v.Now, 0), Key: ed25519.NewKeyFromSeed(seed),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Get("webhook-signature"); got != v.Headers["webhook-signature"] {
		t.Errorf("signature %q; want %q", got, v.Headers["webhook-signature"])
	}
}

// TestStandardSecretsAndPublicKeys numbers public keys after secrets.
func TestStandardSecretsAndPublicKeys(t *testing.T) {
	t.Parallel()
	pub, priv := whpkKey(t, "k")
	o := Options{Scheme: "standard", Secrets: []string{whsecSecret("a"), ""}, PublicKeys: []string{"", pub}}
	h, err := Sign(o, 0, Message{ID: "msg_1", Body: spacedBody, Now: testNow, Key: priv})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := verify(t, o, Request{Header: h, Body: spacedBody, Now: testNow}); err != nil || res.Slot != 3 {
		t.Errorf("v1a: Verify = %+v, %v; want slot 3", res, err)
	}
	h, err = Sign(o, 0, Message{ID: "msg_1", Body: spacedBody, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := verify(t, o, Request{Header: h, Body: spacedBody, Now: testNow}); err != nil || res.Slot != 0 {
		t.Errorf("v1: Verify = %+v, %v; want slot 0", res, err)
	}
}
