package adminapi_test

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/cli"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// twilioPublicURL is the Twilio source's public_url: the URL Twilio calls,
// but for the query each webhook adds.
const twilioPublicURL = "https://relay.example/webhooks/twilio"

// twilioConfig is the base config with a Twilio source.
func twilioConfig(t *testing.T) *config.Config {
	t.Helper()
	env := maps.Clone(testEnv)
	env["TWILIO"] = "twilio-auth-token-for-admin-tests"
	gitlab := `  - {name: gitlab, verify: gitlab, secrets: ["${GITLAB}"]}` + "\n"
	body := strings.Replace(baseConfig, gitlab,
		gitlab+`  - {name: twilio, verify: twilio, secrets: ["${TWILIO}"], public_url: "`+twilioPublicURL+`"}`+"\n", 1)
	cfg, err := config.Parse([]byte(body), t.TempDir(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("parse test config: %v", err)
	}
	return cfg
}

// postTwilio posts a request signed as Twilio signs a call of signedURL
// to the receiver, with the query of signedURL, and returns the hookrelay
// id of the stored event.
func postTwilio(t *testing.T, b *testBundle, signedURL, token string, body []byte) string {
	t.Helper()
	src, _ := b.cfg.Source("twilio")
	opts := src.SchemeOptions()
	base, query, _ := strings.Cut(signedURL, "?")
	opts.PublicURL = signedURL
	signed, err := signature.SignRequest(opts, 0, signature.Message{ID: token, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	if base != twilioPublicURL {
		t.Fatalf("signed URL %s is not the source's", signedURL)
	}
	// The signer appends its own query (bodySHA256) to the one of the URL
	// called; the request carries both.
	switch {
	case query == "":
		query = signed.RawQuery
	case signed.RawQuery != "":
		query += "&" + signed.RawQuery
	}
	target := b.ingest.URL + "/webhooks/twilio"
	if query != "" {
		target += "?" + query
	}
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(signed.Body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = signed.Header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ingest twilio %s: %d %s", token, resp.StatusCode, answer)
	}
	ev, err := b.store.EventByProviderID(context.Background(), "twilio", token)
	if err != nil {
		t.Fatal(err)
	}
	if ev.RawQuery != query {
		t.Errorf("stored raw query = %q, want %q as received", ev.RawQuery, query)
	}
	return ev.ID
}

// TestVerifyTwilioQuery ingests genuine Twilio events whose URL carries a
// query (the body's hash of a JSON body, parameters of the webhook URL
// itself) and verifies each again through the admin API and through
// `hookrelay verify`: each matches, as it did when it arrived.
func TestVerifyTwilioQuery(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, twilioConfig(t))
		events := []struct{ name, url, token, body string }{
			{"json body, its hash in the query", twilioPublicURL, "idem-json", `{"sid":"SM1","status":"delivered"}`},
			{"json body, the webhook URL's own query", twilioPublicURL + "?tenant=acme&to=%2B15551234567", "idem-json-q",
				`{"sid":"SM2","status":"sent"}`},
			{"form body, the webhook URL's own query", twilioPublicURL + "?tenant=acme&flag", "idem-form-q",
				"MessageSid=SM3&MessageStatus=delivered&From=%2B15551234567"},
		}
		for _, e := range events {
			id := postTwilio(t, b, e.url, e.token, []byte(e.body))
			var v adminwire.Verification
			wantStatus(t, "verify "+e.name, b.call(t, readToken, "POST", "/api/v1/events/"+id+"/verify", nil, &v), 200)
			if !v.Valid || v.Slot == nil || *v.Slot != 0 || v.Scheme != "twilio" {
				t.Errorf("%s: verify = %+v; want valid in slot 0", e.name, v)
			}

			var stdout, stderr bytes.Buffer
			env := cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
				switch k {
				case adminclient.ServerEnv:
					return b.api.URL
				case adminclient.TokenEnv:
					return readToken
				}
				return ""
			}}
			if code := cli.Main(context.Background(), env, []string{"verify", id}); code != 0 ||
				!strings.Contains(stdout.String(), "valid: the signature matches secret slot 0 (scheme twilio)") {
				t.Errorf("%s: hookrelay verify exit %d\nstdout: %s\nstderr: %s", e.name, code, stdout.String(), stderr.String())
			}
		}
	})
}
