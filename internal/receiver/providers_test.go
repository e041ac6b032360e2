package receiver_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/route"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// providerCase is one provider preset as a source, with what it takes to
// send it a genuine, a forged and a stale request.
type providerCase struct {
	opts   signature.Options // the source's scheme options; Scheme names the source too
	name   string            // the source name when it is not opts.Scheme
	key    crypto.Signer     // signs for a public-key scheme
	forger signature.Options // signs forged requests (another secret or key)
	forged crypto.Signer
	body   string
	timed  bool // the provider signs a time: a stale request is refused
}

func (c providerCase) source() string {
	if c.name != "" {
		return c.name
	}
	return c.opts.Scheme
}

const providerURL = "https://relay.example.com/webhooks/"

// providerCases returns a case per provider preset, with fresh keys.
func providerCases(t *testing.T) []providerCase {
	t.Helper()
	edKey := func(seed byte) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32)) }
	edHex := func(k ed25519.PrivateKey) string { return hex.EncodeToString(k.Public().(ed25519.PublicKey)) }
	whpk := func(k ed25519.PrivateKey) string {
		return "whpk_" + base64.StdEncoding.EncodeToString(k.Public().(ed25519.PublicKey))
	}
	ecKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ecPub := func(k *ecdsa.PrivateKey) string {
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(der)
	}
	secrets := func(s string) []string { return []string{s} }
	discord, discordForger := edKey(1), edKey(2)
	v1a, v1aForger := edKey(3), edKey(4)
	sendgrid, sendgridForger := ecKey(), ecKey()
	return []providerCase{
		{opts: signature.Options{Scheme: "twilio", Secrets: secrets("twilio-token"), PublicURL: providerURL + "twilio"},
			body: "MessageSid=SM1&MessageStatus=delivered&From=%2B15551234567"},
		{name: "twilio-json", opts: signature.Options{Scheme: "twilio", Secrets: secrets("twilio-token"), PublicURL: providerURL + "twilio-json"},
			body: `{"sid":"SM2","status":"delivered"}`},
		{opts: signature.Options{Scheme: "paddle", Secrets: secrets("pdl_ntfset_secret")}, timed: true,
			body: `{"event_id":"evt_01h","event_type":"transaction.completed","occurred_at":"2024-03-20T10:07:35.590857Z","data":{}}`},
		{opts: signature.Options{Scheme: "zoom", Secrets: secrets("zoom-secret-token")}, timed: true,
			body: `{"event":"meeting.started","event_ts":1700000000123,"payload":{"object":{"id":"1"}}}`},
		{opts: signature.Options{Scheme: "meta", Secrets: secrets("meta-app-secret"), VerifyToken: "meta-verify-token"},
			body: `{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[]}]}`},
		{opts: signature.Options{Scheme: "discord", PublicKeys: []string{edHex(discord)}}, key: discord, forged: discordForger, timed: true,
			body: `{"id":"1056","type":2,"application_id":"9","data":{"name":"blep"}}`},
		{opts: signature.Options{Scheme: "sendgrid", PublicKeys: []string{ecPub(sendgrid)}}, key: sendgrid, forged: sendgridForger, timed: true,
			body: `[{"email":"a@example.com","event":"delivered","sg_event_id":"e1","timestamp":1700000000}]`},
		{opts: signature.Options{Scheme: "mailgun", Secrets: secrets("mailgun-signing-key")}, timed: true,
			body: `{"event-data":{"id":"CPgfbmQMTCKtHW6uIWtuVe","event":"delivered","timestamp":1700000000.1}}`},
		{opts: signature.Options{Scheme: "square", Secrets: secrets("square-signature-key"), PublicURL: providerURL + "square"},
			body: `{"merchant_id":"M","type":"payment.updated","event_id":"sq-1","created_at":"2023-11-14T22:13:20Z","data":{}}`},
		{opts: signature.Options{Scheme: "linear", Secrets: secrets("lin_wh_secret")}, timed: true,
			body: `{"action":"create","type":"Issue","createdAt":"2023-11-14T22:13:20.000Z","data":{"id":"a1"},"webhookTimestamp":0}`},
		{opts: signature.Options{Scheme: "intercom", Secrets: secrets("intercom-client-secret")},
			body: `{"type":"notification_event","id":"notif_1","topic":"user.created","created_at":1700000000}`},
		{opts: signature.Options{Scheme: "msgraph", Secrets: secrets("graph-client-state")},
			body: `{"value":[{"subscriptionId":"s1","clientState":"","changeType":"created","resource":"Users/x/Messages/y"}]}`},
		{name: "standard-v1a", opts: signature.Options{Scheme: "standard", PublicKeys: []string{whpk(v1a)}}, key: v1a, forged: v1aForger, timed: true,
			body: `{"type":"invoice.paid","timestamp":"2023-11-14T22:13:20Z"}`},
	}
}

// forgerOptions are the case's options with another secret.
func (c providerCase) forgerOptions() signature.Options {
	o := c.opts
	if len(o.Secrets) > 0 {
		o.Secrets = []string{"not-" + o.Secrets[0]}
	}
	return o
}

// setupProviders runs a Receiver with a source per provider case over a
// real database of the driver, serving every receiver pattern.
func setupProviders(t *testing.T, driver testdb.Driver, cases []providerCase) (string, store.Store) {
	t.Helper()
	deps := newIngestDeps(t, driver)
	var sources []receiver.Source
	for _, c := range cases {
		s, err := signature.New(c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.source(), err)
		}
		sources = append(sources, receiver.Source{Name: c.source(), Scheme: s, MaxBody: maxBody})
	}
	router, err := route.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rc := receiver.New(receiver.Options{Sources: sources, Router: router, Committer: deps.committer,
		Rejections: deps.rejections, Metrics: deps.metrics, Logger: deps.logger})
	mux := http.NewServeMux()
	for _, p := range receiver.Patterns {
		mux.Handle(p, rc)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, deps.store
}

// post sends the case's body signed with o (and key) at the time at.
func (c providerCase) post(t *testing.T, base string, o signature.Options, key crypto.Signer, at time.Time) (*http.Response, string) {
	t.Helper()
	r, err := signature.SignRequest(o, 0, signature.Message{ID: "msg-" + c.source(), Body: []byte(c.body), Now: at, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return c.send(t, base, r)
}

func (c providerCase) send(t *testing.T, base string, r signature.SignedRequest) (*http.Response, string) {
	t.Helper()
	u := base + "/webhooks/" + c.source()
	if r.RawQuery != "" {
		u += "?" + r.RawQuery
	}
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return do(t, req)
}

// TestProviderPresets sends every provider preset a genuine request (200,
// stored once), a forged one (401) and, where the provider signs a time, a
// stale one (400), on both drivers.
func TestProviderPresets(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			cases := providerCases(t)
			base, st := setupProviders(t, driver, cases)
			for _, c := range cases {
				before := storedEventCount(t, st)
				if resp, text := c.post(t, base, c.opts, c.key, time.Now()); resp.StatusCode != 200 || text != `{"status":"stored"}` {
					t.Errorf("%s genuine: %d %s", c.source(), resp.StatusCode, text)
				}
				forger, key := c.forgerOptions(), c.forged
				if resp, text := c.post(t, base, forger, key, time.Now()); resp.StatusCode != 401 {
					t.Errorf("%s forged: %d %s; want 401", c.source(), resp.StatusCode, text)
				}
				if c.timed {
					if resp, text := c.post(t, base, c.opts, c.key, time.Now().Add(-time.Hour)); resp.StatusCode != 400 ||
						text != `{"error":"timestamp_out_of_tolerance"}` {
						t.Errorf("%s stale: %d %s; want 400", c.source(), resp.StatusCode, text)
					}
				}
				if n := storedEventCount(t, st); n != before+1 {
					t.Errorf("%s: %d events stored; want 1", c.source(), n-before)
				}
			}
		})
	}
}

// TestProviderHandshakes answers each provider's handshake after verifying
// it, stores none of them, and refuses a forged one.
func TestProviderHandshakes(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			all := providerCases(t)
			byName := map[string]providerCase{}
			for _, c := range all {
				byName[c.source()] = c
			}
			base, st := setupProviders(t, driver, all)
			get := func(path string) (*http.Response, string) {
				req, _ := http.NewRequest(http.MethodGet, base+path, nil)
				return do(t, req)
			}

			// Zoom: the challenge is answered with the token's HMAC.
			zoom := byName["zoom"]
			zoom.body = `{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"}`
			resp, text := zoom.post(t, base, zoom.opts, nil, time.Now())
			m := hmac.New(sha256.New, []byte(zoom.opts.Secrets[0]))
			m.Write([]byte("qgg8vlvZRS6UYooatFL8Aw"))
			var answer map[string]string
			if resp.StatusCode != 200 || json.Unmarshal([]byte(text), &answer) != nil ||
				answer["plainToken"] != "qgg8vlvZRS6UYooatFL8Aw" || answer["encryptedToken"] != hex.EncodeToString(m.Sum(nil)) {
				t.Errorf("zoom validation: %d %s", resp.StatusCode, text)
			}
			if resp, _ := zoom.post(t, base, zoom.forgerOptions(), nil, time.Now()); resp.StatusCode != 401 {
				t.Errorf("forged zoom validation: %d; want 401", resp.StatusCode)
			}

			// Meta: a GET with the verify token is answered its challenge.
			resp, text = get("/webhooks/meta?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meta-verify-token")
			if resp.StatusCode != 200 || text != "1158201444" || resp.Header.Get("Content-Type") != "text/plain" {
				t.Errorf("meta subscription: %d %q %s", resp.StatusCode, text, resp.Header.Get("Content-Type"))
			}
			if resp, text := get("/webhooks/meta?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess"); resp.StatusCode != 401 || strings.Contains(text, "1158201444") {
				t.Errorf("meta subscription with a wrong token: %d %q; want 401", resp.StatusCode, text)
			}
			// A GET is 405 for a source whose provider never sends one, and
			// for an unknown source.
			for _, path := range []string{"/webhooks/paddle?hub.mode=subscribe", "/webhooks/nope"} {
				if resp, _ := get(path); resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
					t.Errorf("GET %s: %d, Allow %q; want 405, POST", path, resp.StatusCode, resp.Header.Get("Allow"))
				}
			}

			// Discord: a PING is answered PONG.
			discord := byName["discord"]
			discord.body = `{"id":"1055","type":1,"application_id":"9"}`
			if resp, text := discord.post(t, base, discord.opts, discord.key, time.Now()); resp.StatusCode != 200 || text != `{"type":1}` {
				t.Errorf("discord PING: %d %s", resp.StatusCode, text)
			}
			if resp, _ := discord.post(t, base, discord.opts, discord.forged, time.Now()); resp.StatusCode != 401 {
				t.Errorf("forged discord PING: %d; want 401", resp.StatusCode)
			}

			// Microsoft Graph: the validation token comes back as text.
			graph := byName["msgraph"]
			resp, text = graph.send(t, base, signature.SignedRequest{RawQuery: "validationToken=Validation%3a+Testing+client+application+reachability", Header: http.Header{"Content-Type": {"text/plain"}}})
			if resp.StatusCode != 200 || text != "Validation: Testing client application reachability" || resp.Header.Get("Content-Type") != "text/plain" {
				t.Errorf("graph validation: %d %q", resp.StatusCode, text)
			}

			if n := storedEventCount(t, st); n != 0 {
				t.Errorf("handshakes stored %d events", n)
			}
		})
	}
}

// TestMailgunTokenStoredOnce sends a Mailgun signature twice, the second
// time over another body: the token is the event id, so the second is a
// duplicate and nothing is written twice.
func TestMailgunTokenStoredOnce(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			var mailgun providerCase
			for _, c := range providerCases(t) {
				if c.source() == "mailgun" {
					mailgun = c
				}
			}
			base, st := setupProviders(t, driver, []providerCase{mailgun})
			r, err := signature.SignRequest(mailgun.opts, 0, signature.Message{Body: []byte(mailgun.body), Now: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			if resp, text := mailgun.send(t, base, r); resp.StatusCode != 200 || text != `{"status":"stored"}` {
				t.Fatalf("first: %d %s", resp.StatusCode, text)
			}
			replayed := r
			replayed.Body = bytes.Replace(r.Body, []byte(`"delivered"`), []byte(`"failed"`), 1)
			if resp, text := mailgun.send(t, base, replayed); resp.StatusCode != 200 || text != `{"status":"duplicate"}` {
				t.Fatalf("replayed token: %d %s", resp.StatusCode, text)
			}
			var token struct {
				Signature struct{ Token string } `json:"signature"`
			}
			if err := json.Unmarshal(r.Body, &token); err != nil {
				t.Fatal(err)
			}
			if ev := findEvent(t, st, "mailgun", token.Signature.Token); !bytes.Equal(ev.Body, r.Body) || ev.Type != "delivered" {
				t.Errorf("stored %s %q", ev.Type, ev.Body)
			}
			if n := storedEventCount(t, st); n != 1 {
				t.Errorf("%d events stored; want 1", n)
			}
		})
	}
}
