package receiver_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// respellCase is a source whose scheme signs the body alone, with where
// its signature, delivery id and event type are read.
type respellCase struct {
	name   string
	opts   signature.Options
	sig    string // the signature header
	prefix string // what precedes the encoded signature in it
	hex    bool   // the signature is hex, which decodes in either letter case
	b64    bool   // the signature is padded standard base64
	id     string // the delivery id header; empty when the id is read from the body
	typ    string // the event type header, or empty
	body   string
}

// respelling rewrites a captured request into another spelling its
// scheme accepts as the same signature.
type respelling struct {
	name  string
	apply func(c respellCase, h http.Header, body *string)
}

func respellCases() []respellCase {
	secrets := []string{"respell-secret"}
	twilioForm := "MessageSid=SM1&MessageStatus=delivered&From=%2B15551234567"
	return []respellCase{
		{name: "github", opts: signature.Options{Scheme: "github", Secrets: secrets},
			sig: "X-Hub-Signature-256", prefix: "sha256=", hex: true, id: "X-GitHub-Delivery", typ: "X-GitHub-Event",
			body: `{"ref":"refs/heads/main","after":"5d1c"}`},
		{name: "github-sha1", opts: signature.Options{Scheme: "github", Secrets: secrets, AllowSHA1: true},
			sig: "X-Hub-Signature-256", prefix: "sha256=", hex: true, id: "X-GitHub-Delivery", typ: "X-GitHub-Event",
			body: `{"ref":"refs/heads/main","after":"77ab"}`},
		{name: "shopify", opts: signature.Options{Scheme: "shopify", Secrets: secrets},
			sig: "X-Shopify-Hmac-Sha256", b64: true, id: "X-Shopify-Webhook-Id", typ: "X-Shopify-Topic",
			body: `{"id":820982911946154508,"email":"jon@example.com"}`},
		{name: "meta", opts: signature.Options{Scheme: "meta", Secrets: secrets, IDHeader: "X-Meta-Delivery"},
			sig: "X-Hub-Signature-256", prefix: "sha256=", hex: true, id: "X-Meta-Delivery",
			body: `{"object":"page","entry":[{"id":"1","changes":[]}]}`},
		{name: "linear", opts: signature.Options{Scheme: "linear", Secrets: secrets},
			sig: "Linear-Signature", hex: true, id: "Linear-Delivery", typ: "Linear-Event",
			body: `{"action":"create","type":"Issue","createdAt":"2023-11-14T22:13:20.000Z","data":{"id":"a1"},"webhookTimestamp":0}`},
		{name: "hmac-hex", opts: signature.Options{Scheme: "hmac", Secrets: secrets, IDHeader: "X-Delivery", TypeHeader: "X-Event",
			HMAC: signature.HMACOptions{Header: "X-Signature", Prefix: "sha256="}},
			sig: "X-Signature", prefix: "sha256=", hex: true, id: "X-Delivery", typ: "X-Event",
			body: `{"order":1}`},
		{name: "hmac-base64", opts: signature.Options{Scheme: "hmac", Secrets: secrets, IDHeader: "X-Delivery", TypeHeader: "X-Event",
			HMAC: signature.HMACOptions{Header: "X-Signature", Algorithm: "sha512", Encoding: "base64"}},
			sig: "X-Signature", b64: true, id: "X-Delivery", typ: "X-Event",
			body: `{"order":2}`},
		{name: "twilio-form", opts: signature.Options{Scheme: "twilio", Secrets: secrets, PublicURL: providerURL + "twilio-form"},
			sig: "X-Twilio-Signature", b64: true, id: "I-Twilio-Idempotency-Token", body: twilioForm},
		{name: "twilio-json", opts: signature.Options{Scheme: "twilio", Secrets: secrets, PublicURL: providerURL + "twilio-json"},
			sig: "X-Twilio-Signature", b64: true, id: "I-Twilio-Idempotency-Token", body: `{"sid":"SM2","status":"delivered"}`},
		{name: "intercom", opts: signature.Options{Scheme: "intercom", Secrets: secrets},
			sig: "X-Hub-Signature", prefix: "sha1=", hex: true,
			body: `{"type":"notification_event","id":"notif_1","topic":"user.created","created_at":1700000000}`},
		{name: "square", opts: signature.Options{Scheme: "square", Secrets: secrets, PublicURL: providerURL + "square"},
			sig: "X-Square-Hmacsha256-Signature", b64: true,
			body: `{"merchant_id":"M","type":"payment.updated","event_id":"sq-1","created_at":"2023-11-14T22:13:20Z","data":{}}`},
	}
}

// rewriteHex applies f to the hex digits of the case's signature.
func rewriteHex(c respellCase, h http.Header, f func(string) string) {
	v := h.Get(c.sig)
	h.Set(c.sig, c.prefix+f(strings.TrimPrefix(v, c.prefix)))
}

// respellings returns the spellings of c's captured request that its
// scheme verifies as the same signature, the control (no change) first.
func respellings(c respellCase) []respelling {
	out := []respelling{
		{"same spelling", func(respellCase, http.Header, *string) {}},
		{"spaces around", func(c respellCase, h http.Header, _ *string) { h.Set(c.sig, "  "+h.Get(c.sig)+"\t") }},
	}
	if c.hex {
		out = append(out,
			respelling{"upper-case hex", func(c respellCase, h http.Header, _ *string) {
				rewriteHex(c, h, strings.ToUpper)
			}},
			respelling{"mixed-case hex", func(c respellCase, h http.Header, _ *string) {
				rewriteHex(c, h, func(s string) string {
					b := []byte(s)
					for i := 0; i < len(b); i += 2 {
						b[i] = bytes.ToUpper(b[i : i+1])[0]
					}
					return string(b)
				})
			}},
		)
	}
	switch c.name {
	case "github-sha1":
		out = append(out,
			respelling{"legacy sha1 header alone", func(_ respellCase, h http.Header, _ *string) {
				h.Del("X-Hub-Signature-256")
			}},
			respelling{"legacy sha1 header alone, upper-case", func(_ respellCase, h http.Header, _ *string) {
				h.Del("X-Hub-Signature-256")
				h.Set("X-Hub-Signature", "sha1="+strings.ToUpper(strings.TrimPrefix(h.Get("X-Hub-Signature"), "sha1=")))
			}},
		)
	case "twilio-form":
		out = append(out,
			respelling{"parameters reordered", func(_ respellCase, _ http.Header, body *string) {
				*body = "From=%2B15551234567&MessageStatus=delivered&MessageSid=SM1"
			}},
			respelling{"a value percent-encoded", func(_ respellCase, _ http.Header, body *string) {
				*body = strings.Replace(*body, "SM1", "%53%4d1", 1)
			}},
			respelling{"a parameter repeated", func(_ respellCase, _ http.Header, body *string) {
				*body += "&MessageSid=SM1"
			}},
		)
	}
	return out
}

// refusedSpellings returns the spellings of c's captured request that
// its scheme does not accept: a base64 signature without its padding or
// in the URL-safe alphabet. Each is refused as a mismatch, so no
// encoding outside the one the scheme reads offers another way in.
func refusedSpellings(c respellCase, h http.Header) []respelling {
	if !c.b64 {
		return nil
	}
	out := []respelling{{"base64 without padding", func(c respellCase, h http.Header, _ *string) {
		h.Set(c.sig, strings.TrimRight(h.Get(c.sig), "="))
	}}}
	if v := h.Get(c.sig); strings.ContainsAny(v, "+/") {
		out = append(out, respelling{"base64url alphabet", func(c respellCase, h http.Header, _ *string) {
			h.Set(c.sig, strings.NewReplacer("+", "-", "/", "_").Replace(h.Get(c.sig)))
		}})
	}
	return out
}

// TestReplayedSignatureRespelled captures a genuine request of every
// scheme that signs the body alone and posts it again in each spelling
// its scheme accepts as the same signature, under a new delivery id and a
// made-up event type: each re-post is refused with 409, like the re-post
// in the same spelling. Where the id is read from the body, a re-post is
// the same event: a duplicate. A spelling the scheme does not accept is a
// mismatch (401). Either way the source stores one event.
func TestReplayedSignatureRespelled(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			cases := respellCases()
			var pcs []providerCase
			for _, c := range cases {
				pcs = append(pcs, providerCase{name: c.name, opts: c.opts})
			}
			base, st := setupProviders(t, driver, pcs)
			for _, c := range cases {
				captured, err := signature.SignRequest(c.opts, 0, signature.Message{ID: "delivery-0", Type: "push", Body: []byte(c.body), Now: time.Now()})
				if err != nil {
					t.Fatal(err)
				}
				if c.id != "" {
					captured.Header.Set(c.id, "delivery-0")
				}
				pc := providerCase{name: c.name}
				if resp, text := pc.send(t, base, captured); resp.StatusCode != 200 || text != `{"status":"stored"}` {
					t.Fatalf("%s genuine: %d %s", c.name, resp.StatusCode, text)
				}
				for i, rs := range respellings(c) {
					r := signature.SignedRequest{Header: captured.Header.Clone(), Body: captured.Body, RawQuery: captured.RawQuery}
					body := string(r.Body)
					rs.apply(c, r.Header, &body)
					r.Body = []byte(body)
					if c.id != "" {
						r.Header.Set(c.id, "delivery-"+strings.Repeat("x", i+1))
					}
					if c.typ != "" {
						r.Header.Set(c.typ, "made.up")
					}
					resp, text := pc.send(t, base, r)
					switch {
					case c.id != "" && resp.StatusCode != http.StatusConflict:
						t.Errorf("%s, %s, new delivery id: %d %s; want 409", c.name, rs.name, resp.StatusCode, text)
					case c.id == "" && (resp.StatusCode != 200 || text != `{"status":"duplicate"}`):
						t.Errorf("%s, %s: %d %s; want 200 duplicate", c.name, rs.name, resp.StatusCode, text)
					}
				}
				for i, rs := range refusedSpellings(c, captured.Header) {
					r := signature.SignedRequest{Header: captured.Header.Clone(), Body: captured.Body, RawQuery: captured.RawQuery}
					rs.apply(c, r.Header, nil)
					if c.id != "" {
						r.Header.Set(c.id, "refused-"+strings.Repeat("x", i+1))
					}
					if resp, text := pc.send(t, base, r); resp.StatusCode != http.StatusUnauthorized {
						t.Errorf("%s, %s: %d %s; want 401", c.name, rs.name, resp.StatusCode, text)
					}
				}
				if n, err := st.CountEvents(context.Background(), c.name); err != nil || n != 1 {
					t.Errorf("%s: %d events stored (%v); want 1", c.name, n, err)
				}
			}
		})
	}
}
