package signature

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

// The public-key schemes are fuzzed with the keys of published vectors and
// fixtures, so that the seeds in testdata/fuzz carry genuine signatures;
// the oracle verifies with crypto/ed25519 and crypto/ecdsa directly.

// fuzzDiscordKey is the public key of testdata/provider-fixtures.json.
const fuzzDiscordKey = "ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c"

// FuzzDiscordVerify checks the hex Ed25519 signature of timestamp + body.
func FuzzDiscordVerify(f *testing.F) {
	f.Add("00", "1700000000", []byte(`{"type":1}`))
	f.Fuzz(func(t *testing.T, sig, ts string, body []byte) {
		s := newFuzzScheme(t, Options{Scheme: "discord", Secrets: []string{}, PublicKeys: []string{"", fuzzDiscordKey}})
		h := http.Header{}
		setNonEmpty(h, "X-Signature-Ed25519", sig)
		setNonEmpty(h, "X-Signature-Timestamp", ts)
		pub, _ := hex.DecodeString(fuzzDiscordKey)
		raw, err := hex.DecodeString(sig)
		_, readable := oracleUnix(ts)
		var want error
		switch {
		case sig == "", ts == "":
			want = ErrMissingSignature
		case !readable:
			want = ErrMalformedSignature
		case err != nil || len(raw) != ed25519.SignatureSize || !ed25519.Verify(pub, append([]byte(ts), body...), raw):
			want = ErrMismatch
		default:
			want = oracleFresh(ts)
		}
		checkVerify(t, s, h, body, want)
	})
}

// fuzzSendGridKey is the public key of SendGrid's Go library's vectors.
const fuzzSendGridKey = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQGhHPTnlvFYPAZFceEu/1FwCM/QmGUhA=="

// FuzzSendGridVerify checks the base64 ASN.1 ECDSA P-256 signature of the
// SHA-256 of timestamp + body. Its tolerance is wide, so that the vector's
// 2020 timestamp is fresh.
func FuzzSendGridVerify(f *testing.F) {
	f.Add("MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH2j/0=", "1588788367",
		[]byte(`{"category":"example_payload","event":"test_event","message_id":"message_id"}`))
	f.Fuzz(func(t *testing.T, sig, ts string, body []byte) {
		const wide = 1 << 62 // about 146 years
		s := newFuzzScheme(t, Options{Scheme: "sendgrid", Secrets: []string{}, PublicKeys: []string{"", fuzzSendGridKey}, Tolerance: wide})
		h := http.Header{}
		setNonEmpty(h, "X-Twilio-Email-Event-Webhook-Signature", sig)
		setNonEmpty(h, "X-Twilio-Email-Event-Webhook-Timestamp", ts)
		key, err := ParsePublicKey("sendgrid", fuzzSendGridKey)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.StdEncoding.DecodeString(sig)
		digest := sha256.Sum256(append([]byte(ts), body...))
		_, readable := oracleUnix(ts)
		var want error
		switch {
		case sig == "", ts == "":
			want = ErrMissingSignature
		case !readable:
			want = ErrMalformedSignature
		case err != nil || len(sig) > maxECDSASignature || !ecdsa.VerifyASN1(key.(*ecdsa.PublicKey), digest[:], raw):
			want = ErrMismatch
		}
		checkVerify(t, s, h, body, want)
	})
}

// fuzzWhpk is the public key of the Standard Webhooks asymmetric vector.
const fuzzWhpk = "whpk_ZlN4eg7dSSqi0moX9hQUk3orrOouK3QVQSlJa248c/g="

// FuzzStandardV1aVerify checks "v1a,<base64>" Ed25519 entries over
// "<id>.<timestamp>.<body>", with at most maxSignatures entries.
func FuzzStandardV1aVerify(f *testing.F) {
	f.Add("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330",
		"v1a,tQ9V2XOqn7jL/DQenEFpqIugdBVtiMmER5mhSkXBNwM0mkATuDe6KYYUuxqtaiHeYGb7KaaBRdM5WqyeFiL8Ag==", []byte(`{"test": 2432232314}`))
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		const wide = 1 << 62
		s := newFuzzScheme(t, Options{Scheme: "standard", Secrets: []string{}, PublicKeys: []string{"", fuzzWhpk}, Tolerance: wide})
		h := http.Header{}
		setNonEmpty(h, "webhook-id", id)
		setNonEmpty(h, "webhook-timestamp", ts)
		setNonEmpty(h, "webhook-signature", sig)
		pub, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(fuzzWhpk, "whpk_"))
		entries := strings.Fields(sig)
		versioned, matched := false, false
		for _, e := range entries {
			if strings.HasPrefix(e, "v1,") {
				versioned = true
			}
			if rest, ok := strings.CutPrefix(e, "v1a,"); ok {
				versioned = true
				raw, err := base64.StdEncoding.Strict().DecodeString(rest)
				matched = matched || (err == nil && len(raw) == ed25519.SignatureSize &&
					ed25519.Verify(pub, append([]byte(id+"."+ts+"."), body...), raw))
			}
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
		case !versioned || len(entries) > maxSignatures:
			want = ErrMalformedSignature
		case !matched:
			want = ErrMismatch
		}
		checkVerify(t, s, h, body, want)
	})
}
