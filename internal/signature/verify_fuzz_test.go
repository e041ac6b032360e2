package signature

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// The fuzz targets of this file and of timed_fuzz_test.go drive each
// scheme's Verify with arbitrary header values and bodies and compare its
// verdict with an oracle written from the providers' documentation: an
// HMAC computed here with crypto/hmac, independently of the scheme's own
// code. So they check more than "no panic": a request verifies exactly
// when it carries the genuine signature, and every refusal names the
// error the receiver turns into the right status code.

// fuzzNow is the receive time of every fuzzed request.
var fuzzNow = time.Unix(1700000000, 0).UTC()

// fuzzSecret signs every fuzzed request. It sits in slot 1 behind an
// inactive slot 0, so an accepted request must report slot 1.
const fuzzSecret = "fuzz-secret"

var fuzzSecrets = []string{"", fuzzSecret}

// sentinels are the errors Verify may return.
var sentinels = []error{ErrNoSecret, ErrMissingSignature, ErrMalformedSignature, ErrMismatch, ErrStale}

// newFuzzScheme builds the scheme o with the fuzz secrets.
func newFuzzScheme(t *testing.T, o Options) Scheme {
	t.Helper()
	if o.Secrets == nil {
		o.Secrets = fuzzSecrets
	}
	s, err := New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	return s
}

// oracleMAC is the HMAC of the concatenated parts keyed with key.
func oracleMAC(newHash func() hash.Hash, key []byte, parts ...[]byte) []byte {
	m := hmac.New(newHash, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// oracleUnix reads a signed timestamp as the schemes document it: one to
// twelve decimal digits, nothing else.
func oracleUnix(s string) (time.Time, bool) {
	if len(s) == 0 || len(s) > 12 || strings.Trim(s, "0123456789") != "" {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return time.Unix(n, 0), err == nil
}

// oracleFresh is the verdict on a genuine signature over the timestamp
// text ts, already known to be readable.
func oracleFresh(ts string) error {
	t, _ := oracleUnix(ts)
	if skew := fuzzNow.Sub(t); skew > DefaultTolerance || skew < -DefaultTolerance {
		return ErrStale
	}
	return nil
}

// hexEqual reports whether s is the hex of sum, in either case.
func hexEqual(s string, sum []byte) bool { return strings.EqualFold(s, hex.EncodeToString(sum)) }

// checkVerify runs Verify and fails unless its verdict is want (nil for
// a verified request) and its result is consistent with it.
func checkVerify(t *testing.T, s Scheme, h http.Header, body []byte, want error) {
	t.Helper()
	checkVerifyRequest(t, s, Request{Header: h, Body: body, Now: fuzzNow}, want)
}

// errNoSlot stands for a request that verifies without a secret slot: a
// handshake that carries no signature (Meta's subscription GET, Graph's
// validation request).
var errNoSlot = errors.New("verified without a slot")

// checkVerifyRequest is checkVerify for a whole request.
func checkVerifyRequest(t *testing.T, s Scheme, req Request, want error) {
	t.Helper()
	res, err := s.Verify(req)
	if err != nil {
		n := 0
		for _, e := range sentinels {
			if errors.Is(err, e) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("Verify error %v wraps %d of the documented errors, want exactly 1", err, n)
		}
	}
	wantSlot := store.NoSlot
	if want == nil || want == ErrStale {
		wantSlot = 1
	}
	if want == errNoSlot {
		want = nil
	}
	if (want == nil) != (err == nil) || (want != nil && !errors.Is(err, want)) {
		t.Fatalf("Verify(%q, query %q, body %q) error = %v; want %v", req.Header, req.RawQuery, req.Body, err, want)
	}
	if res.Slot != wantSlot {
		t.Fatalf("Verify(%q) slot = %d; want %d (error %v)", req.Header, res.Slot, wantSlot, err)
	}
}

// setNonEmpty sets a header unless the value is empty, which stands for
// a header that was not sent.
func setNonEmpty(h http.Header, name, v string) {
	if v != "" {
		h[http.CanonicalHeaderKey(name)] = []string{v}
	}
}

// FuzzGitHubVerify checks GitHub's sha256 header, and the legacy sha1 one
// that AllowSHA1 accepts when the sha256 one is absent.
func FuzzGitHubVerify(f *testing.F) {
	f.Add("sha256=1b8a5e4d0c1e4ba0a0fca4d3b1f6a2ff8e8e59ad7b7ba16e2fb7b21a6b3c9d4f", "", []byte(`{"zen":"Keep it logically awesome."}`))
	f.Fuzz(func(t *testing.T, sig256, sig1 string, body []byte) {
		s := newFuzzScheme(t, Options{Scheme: "github", AllowSHA1: true})
		h := http.Header{}
		setNonEmpty(h, "X-Hub-Signature-256", sig256)
		setNonEmpty(h, "X-Hub-Signature", sig1)
		key := []byte(fuzzSecret)
		sig, prefix, sum := sig256, "sha256=", oracleMAC(sha256.New, key, body)
		if sig256 == "" && sig1 != "" {
			sig, prefix, sum = sig1, "sha1=", oracleMAC(sha1.New, key, body)
		}
		var want error
		switch rest, ok := strings.CutPrefix(sig, prefix); {
		case sig == "":
			want = ErrMissingSignature
		case !ok:
			want = ErrMalformedSignature
		case !hexEqual(rest, sum):
			want = ErrMismatch
		}
		checkVerify(t, s, h, body, want)
	})
}

// FuzzShopifyVerify checks Shopify's base64 header: only the canonical
// base64 of the digest verifies.
func FuzzShopifyVerify(f *testing.F) {
	f.Add("8dO0n3EH0/MqbqCO5+1mOY/uoajf4mhaF82Li0CnZVY=", []byte(`{"id":1}`))
	f.Fuzz(func(t *testing.T, sig string, body []byte) {
		s := newFuzzScheme(t, Options{Scheme: "shopify"})
		h := http.Header{}
		setNonEmpty(h, "X-Shopify-Hmac-Sha256", sig)
		var want error
		switch {
		case sig == "":
			want = ErrMissingSignature
		case sig != base64.StdEncoding.EncodeToString(oracleMAC(sha256.New, []byte(fuzzSecret), body)):
			want = ErrMismatch
		}
		checkVerify(t, s, h, body, want)
	})
}

// FuzzGitLabVerify checks GitLab's shared token: only the secret itself
// verifies, whatever the body.
func FuzzGitLabVerify(f *testing.F) {
	f.Add(fuzzSecret, []byte(`{"object_kind":"push"}`))
	f.Fuzz(func(t *testing.T, token string, body []byte) {
		s := newFuzzScheme(t, Options{Scheme: "gitlab"})
		h := http.Header{}
		setNonEmpty(h, "X-Gitlab-Token", token)
		var want error
		switch {
		case token == "":
			want = ErrMissingSignature
		case token != fuzzSecret:
			want = ErrMismatch
		}
		checkVerify(t, s, h, body, want)
	})
}

// oracleLinear is the hex HMAC-SHA256 of body with the named test secret.
func oracleLinear(name string, body []byte) string {
	return hex.EncodeToString(oracleMAC(sha256.New, []byte(plainSecret(name)), body))
}
