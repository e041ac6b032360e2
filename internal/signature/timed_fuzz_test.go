package signature

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

// FuzzSlackVerify checks Slack's "v0=<hex>" header over
// "v0:<timestamp>:<body>", and its timestamp header.
func FuzzSlackVerify(f *testing.F) {
	f.Add("v0=00", "1700000000", []byte(`{"type":"event_callback"}`))
	f.Fuzz(func(t *testing.T, sig, ts string, body []byte) {
		checkV0Timestamped(t, "slack", "X-Slack-Signature", "X-Slack-Request-Timestamp", sig, ts, body)
	})
}

// fuzzWhsec is the Standard Webhooks secret of the fuzz targets and the
// key it stands for.
var (
	fuzzWhsecKey = []byte("fuzz-secret-0123456789")
	fuzzWhsec    = "whsec_" + base64.StdEncoding.EncodeToString(fuzzWhsecKey)
)

// FuzzStandardVerify checks Standard Webhooks under both header prefixes:
// webhook-* unless only svix-* carries a signature, any "v1,<base64>"
// entry of the space-separated list over "<id>.<timestamp>.<body>", at
// most maxSignatures entries.
func FuzzStandardVerify(f *testing.F) {
	f.Add(false, "msg_1", "1700000000", "v1,AAAA v2,BBBB", []byte(`{"type":"invoice.paid"}`))
	f.Fuzz(func(t *testing.T, svix bool, id, ts, sig string, body []byte) {
		s := newFuzzScheme(t, Options{Scheme: "standard", Secrets: []string{"", fuzzWhsec}})
		prefix := "webhook-"
		if svix && sig != "" {
			prefix = "svix-"
		}
		h := http.Header{}
		setNonEmpty(h, prefix+"id", id)
		setNonEmpty(h, prefix+"timestamp", ts)
		setNonEmpty(h, prefix+"signature", sig)
		genuine := base64.StdEncoding.EncodeToString(oracleMAC(sha256.New, fuzzWhsecKey, []byte(id+"."+ts+"."), body))
		var v1, matched bool
		entries := strings.Fields(sig)
		for _, entry := range entries {
			if rest, ok := strings.CutPrefix(entry, "v1,"); ok {
				v1 = true
				matched = matched || rest == genuine
			}
			// A v1a entry counts as a signature; without public keys it
			// matches nothing.
			v1 = v1 || strings.HasPrefix(entry, "v1a,")
		}
		_, readable := oracleUnix(ts)
		var want error
		switch {
		case id == "" || ts == "":
			want = ErrMissingSignature
		case !readable:
			want = ErrMalformedSignature
		case sig == "":
			want = ErrMissingSignature
		case !v1 || len(entries) > maxSignatures:
			want = ErrMalformedSignature
		case !matched:
			want = ErrMismatch
		default:
			want = oracleFresh(ts)
		}
		checkVerify(t, s, h, body, want)
	})
}

// fuzzHMACConfigs are the generic scheme's configurations FuzzHMACVerify
// picks from, with the oracle's view of each.
var fuzzHMACConfigs = []struct {
	opts   Options
	sign   func(ts, id string, body []byte) string // the genuine header value
	timed  bool
	signID bool
}{
	{
		opts: Options{Scheme: "hmac", HMAC: HMACOptions{Header: "X-Signature", Algorithm: "sha1", Encoding: "hex", Prefix: "sha1="}},
		sign: func(_, _ string, body []byte) string {
			return "sha1=" + hex.EncodeToString(oracleMAC(sha1.New, []byte(fuzzSecret), body))
		},
	},
	{
		opts: Options{Scheme: "hmac", HMAC: HMACOptions{Header: "x-sig", Algorithm: "sha512", Encoding: "base64", TimestampHeader: "x-ts"}},
		sign: func(ts, _ string, body []byte) string {
			return base64.StdEncoding.EncodeToString(oracleMAC(sha512.New, []byte(fuzzSecret), []byte(ts+"."), body))
		},
		timed: true,
	},
	{
		opts: Options{Scheme: "hmac", IDHeader: "X-Id", HMAC: HMACOptions{Header: "X-Sig", Encoding: "hex",
			TimestampHeader: "X-Ts", SignedContent: "v1|{id}|{timestamp}|{body}|end"}},
		sign: func(ts, id string, body []byte) string {
			return hex.EncodeToString(oracleMAC(sha256.New, []byte(fuzzSecret), []byte("v1|"+id+"|"+ts+"|"), body, []byte("|end")))
		},
		timed: true, signID: true,
	},
}

// FuzzHMACVerify checks the generic scheme in three configurations: a
// prefixed hex sha1 of the body, a base64 sha512 of "<timestamp>.<body>",
// and a hex sha256 of a template that signs the id header too.
func FuzzHMACVerify(f *testing.F) {
	f.Add(uint8(0), "sha1=00", "", "", []byte(`{}`))
	f.Fuzz(func(t *testing.T, which uint8, sig, ts, id string, body []byte) {
		c := fuzzHMACConfigs[int(which)%len(fuzzHMACConfigs)]
		s := newFuzzScheme(t, c.opts)
		h := http.Header{}
		setNonEmpty(h, c.opts.HMAC.Header, sig)
		setNonEmpty(h, c.opts.HMAC.TimestampHeader, ts)
		setNonEmpty(h, c.opts.IDHeader, id)
		_, readable := oracleUnix(ts)
		genuine := c.sign(ts, id, body)
		var want error
		switch {
		case sig == "":
			want = ErrMissingSignature
		case !strings.HasPrefix(sig, c.opts.HMAC.Prefix):
			want = ErrMalformedSignature
		case c.timed && ts == "":
			want = ErrMissingSignature
		case c.timed && !readable:
			want = ErrMalformedSignature
		case c.signID && id == "":
			want = ErrMissingSignature
		case c.opts.HMAC.Encoding == "hex" && !strings.EqualFold(sig, genuine),
			c.opts.HMAC.Encoding == "base64" && sig != genuine:
			want = ErrMismatch
		case c.timed:
			want = oracleFresh(ts)
		}
		checkVerify(t, s, h, body, want)
	})
}

// checkV0Timestamped checks a scheme that signs "v0:<timestamp>:<body>"
// into a "v0=<hex>" header beside a Unix timestamp header (Slack, Zoom)
// against the oracle.
func checkV0Timestamped(t *testing.T, scheme, sigHeader, tsHeader, sig, ts string, body []byte) {
	t.Helper()
	s := newFuzzScheme(t, Options{Scheme: scheme})
	h := http.Header{}
	setNonEmpty(h, sigHeader, sig)
	setNonEmpty(h, tsHeader, ts)
	rest, prefixed := strings.CutPrefix(sig, "v0=")
	_, readable := oracleUnix(ts)
	var want error
	switch {
	case sig == "":
		want = ErrMissingSignature
	case !prefixed:
		want = ErrMalformedSignature
	case ts == "":
		want = ErrMissingSignature
	case !readable:
		want = ErrMalformedSignature
	case !hexEqual(rest, oracleMAC(sha256.New, []byte(fuzzSecret), []byte("v0:"+ts+":"), body)):
		want = ErrMismatch
	default:
		want = oracleFresh(ts)
	}
	checkVerify(t, s, h, body, want)
}
