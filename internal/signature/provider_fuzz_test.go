package signature

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz targets of the provider presets, written like those of
// verify_fuzz_test.go: each compares Verify's verdict with an oracle that
// follows the provider's documentation and computes with crypto/hmac.

// FuzzPaddleVerify checks "ts=<unix>;h1=<hex>[;h1=...]" over "<ts>:<body>".
func FuzzPaddleVerify(f *testing.F) {
	f.Add("ts=1700000000;h1=00", []byte(`{"event_id":"evt_1"}`))
	f.Fuzz(func(t *testing.T, sig string, body []byte) {
		s := newFuzzScheme(t, Options{Scheme: "paddle"})
		h := http.Header{}
		setNonEmpty(h, "Paddle-Signature", sig)
		var ts string
		var h1 []string
		malformed := false
		for item := range strings.SplitSeq(sig, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
			_, readable := oracleUnix(v)
			switch {
			case !ok, k == "ts" && (ts != "" || !readable):
				malformed = true
			case k == "ts":
				ts = v
			case k == "h1":
				h1 = append(h1, v)
			}
		}
		genuine := oracleMAC(sha256.New, []byte(fuzzSecret), []byte(ts+":"), body)
		var want error
		switch {
		case sig == "":
			want = ErrMissingSignature
		case malformed || ts == "" || len(h1) == 0 || len(h1) > maxSignatures:
			want = ErrMalformedSignature
		case !slices.ContainsFunc(h1, func(s string) bool { return hexEqual(s, genuine) }):
			want = ErrMismatch
		default:
			want = oracleFresh(ts)
		}
		checkVerify(t, s, h, body, want)
	})
}

// FuzzZoomVerify checks "v0=<hex>" over "v0:<timestamp>:<body>".
func FuzzZoomVerify(f *testing.F) {
	f.Add("v0=00", "1700000000", []byte(`{"event":"meeting.started"}`))
	f.Fuzz(func(t *testing.T, sig, ts string, body []byte) {
		checkV0Timestamped(t, "zoom", "x-zm-signature", "x-zm-request-timestamp", sig, ts, body)
	})
}

// FuzzHubVerify checks the "<prefix><hex>" body HMACs of Meta
// (sha256=, X-Hub-Signature-256) and Intercom (sha1=, X-Hub-Signature).
func FuzzHubVerify(f *testing.F) {
	f.Add(false, "sha256=00", []byte(`{"object":"page"}`))
	f.Fuzz(func(t *testing.T, intercom bool, sig string, body []byte) {
		scheme, name, prefix, sum := "meta", "X-Hub-Signature-256", "sha256=", oracleMAC(sha256.New, []byte(fuzzSecret), body)
		if intercom {
			scheme, name, prefix, sum = "intercom", "X-Hub-Signature", "sha1=", oracleMAC(sha1.New, []byte(fuzzSecret), body)
		}
		s := newFuzzScheme(t, Options{Scheme: scheme})
		h := http.Header{}
		setNonEmpty(h, name, sig)
		rest, prefixed := strings.CutPrefix(sig, prefix)
		var want error
		switch {
		case sig == "":
			want = ErrMissingSignature
		case !prefixed:
			want = ErrMalformedSignature
		case !hexEqual(rest, sum):
			want = ErrMismatch
		}
		checkVerify(t, s, h, body, want)
	})
}

// FuzzLinearVerify checks the hex HMAC of the body and the body's
// webhookTimestamp in milliseconds, written as a number when it is all
// digits and as a string otherwise.
func FuzzLinearVerify(f *testing.F) {
	f.Add("00", "1700000000000", "Issue")
	f.Fuzz(func(t *testing.T, sig, ts, typ string) {
		s := newFuzzScheme(t, Options{Scheme: "linear"})
		digits := ts != "" && strings.Trim(ts, "0123456789") == ""
		tsJSON := ts
		if !digits {
			b, _ := json.Marshal(ts)
			tsJSON = string(b)
		}
		typJSON, _ := json.Marshal(typ)
		body := []byte(`{"type":` + string(typJSON) + `,"webhookTimestamp":` + tsJSON + `}`)
		h := http.Header{}
		setNonEmpty(h, "Linear-Signature", sig)
		readable := digits && len(ts) >= 4 && len(ts) <= 15
		var want error
		switch {
		case sig == "":
			want = ErrMissingSignature
		case !hexEqual(sig, oracleMAC(sha256.New, []byte(fuzzSecret), body)):
			want = ErrMismatch
		case !readable:
			want = ErrMalformedSignature
		default:
			want = oracleFresh(ts[:len(ts)-3])
		}
		checkVerify(t, s, h, body, want)
	})
}

// fuzzPublicURL is the public_url of the fuzzed twilio and square sources.
const fuzzPublicURL = "https://relay.example.com/webhooks/p"

// FuzzSquareVerify checks the canonical base64 HMAC of public_url + body.
func FuzzSquareVerify(f *testing.F) {
	f.Add("AAAA", []byte(`{"event_id":"e"}`))
	f.Fuzz(func(t *testing.T, sig string, body []byte) {
		s := newFuzzScheme(t, Options{Scheme: "square", PublicURL: fuzzPublicURL})
		h := http.Header{}
		setNonEmpty(h, "X-Square-Hmacsha256-Signature", sig)
		var want error
		switch {
		case sig == "":
			want = ErrMissingSignature
		case sig != base64.StdEncoding.EncodeToString(oracleMAC(sha256.New, []byte(fuzzSecret), []byte(fuzzPublicURL), body)):
			want = ErrMismatch
		}
		checkVerify(t, s, h, body, want)
	})
}

// FuzzTwilioVerify checks the base64 HMAC-SHA1 of the called URL (with or
// without the default port) and, for a form, its sorted parameters; a
// bodySHA256 query parameter must be the body's hex SHA-256.
func FuzzTwilioVerify(f *testing.F) {
	f.Add("AAAA", "a=1", true, []byte("CallSid=CA1&Digits=1"))
	f.Fuzz(func(t *testing.T, sig, query string, form bool, body []byte) {
		s := newFuzzScheme(t, Options{Scheme: "twilio", PublicURL: fuzzPublicURL})
		h := http.Header{}
		setNonEmpty(h, "X-Twilio-Signature", sig)
		if form {
			h.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		q, qerr := url.ParseQuery(query)
		params, perr := "", error(nil)
		if form && q.Get("bodySHA256") == "" {
			var values url.Values
			if values, perr = url.ParseQuery(string(body)); perr == nil {
				for _, k := range slices.Sorted(func(yield func(string) bool) {
					for k := range values {
						yield(k)
					}
				}) {
					vs := slices.Clone(values[k])
					slices.Sort(vs)
					for _, v := range slices.Compact(vs) {
						params += k + v
					}
				}
			}
		}
		full := fuzzPublicURL
		if query != "" {
			full += "?" + query
		}
		genuine := func(u string) bool {
			return sig == base64.StdEncoding.EncodeToString(oracleMAC(sha1.New, []byte(fuzzSecret), []byte(u+params)))
		}
		sum := sha256.Sum256(body)
		hash := q.Get("bodySHA256")
		var want error
		switch {
		case sig == "":
			want = ErrMissingSignature
		case qerr != nil, perr != nil:
			want = ErrMalformedSignature
		case hash != "" && subtle.ConstantTimeCompare([]byte(strings.ToLower(hash)), []byte(hex.EncodeToString(sum[:]))) != 1:
			want = ErrMismatch
		case !genuine(full) && !genuine(strings.Replace(full, "example.com/", "example.com:443/", 1)):
			want = ErrMismatch
		}
		req := Request{Header: h, Body: body, RawQuery: query, Now: fuzzNow}
		checkVerifyRequest(t, s, req, want)
	})
}

// FuzzMailgunVerify checks the body's signature object: the hex HMAC of
// timestamp + token.
func FuzzMailgunVerify(f *testing.F) {
	f.Add("1700000000", "e0b5477167110d68991efc6b9f89f0a11066af27834600e123", "00")
	f.Fuzz(func(t *testing.T, ts, token, sig string) {
		if !utf8.ValidString(ts + token + sig) {
			return // JSON would carry other text than the oracle signs
		}
		s := newFuzzScheme(t, Options{Scheme: "mailgun"})
		obj, _ := json.Marshal(map[string]map[string]string{"signature": {"timestamp": ts, "token": token, "signature": sig}})
		_, readable := oracleUnix(ts)
		var want error
		switch {
		case ts == "" || token == "" || sig == "":
			want = ErrMissingSignature
		case !readable:
			want = ErrMalformedSignature
		case !hexEqual(sig, oracleMAC(sha256.New, []byte(fuzzSecret), []byte(ts+token))):
			want = ErrMismatch
		default:
			want = oracleFresh(ts)
		}
		checkVerify(t, s, http.Header{}, obj, want)
	})
}

// FuzzMSGraphVerify checks the clientState of two notifications, and the
// validation request a validationToken query makes of a request without a
// body.
func FuzzMSGraphVerify(f *testing.F) {
	f.Add(fuzzSecret, fuzzSecret, "")
	f.Add("", "", "validationToken=abc")
	f.Fuzz(func(t *testing.T, a, b, query string) {
		if !utf8.ValidString(a + b) {
			return // JSON would carry other text than the oracle compares
		}
		s := newFuzzScheme(t, Options{Scheme: "msgraph"})
		var body []byte
		if a != "" || b != "" {
			body, _ = json.Marshal(map[string][]map[string]string{"value": {{"clientState": a}, {"clientState": b}}})
		}
		q, qerr := url.ParseQuery(query)
		var want error
		switch {
		case query != "" && qerr != nil:
			want = ErrMalformedSignature
		case q.Has("validationToken") && q.Get("validationToken") == "":
			want = ErrMissingSignature
		case q.Has("validationToken") && (len(body) > 0 || len(q.Get("validationToken")) > maxValidationToken):
			want = ErrMalformedSignature
		case q.Has("validationToken"):
			want = errNoSlot
		case body == nil:
			want = ErrMalformedSignature
		case a == "" || (a == fuzzSecret && b == ""):
			want = ErrMissingSignature
		case a != fuzzSecret || b != fuzzSecret:
			want = ErrMismatch
		}
		checkVerifyRequest(t, s, Request{Header: http.Header{}, Body: body, RawQuery: query, Now: fuzzNow}, want)
	})
}
