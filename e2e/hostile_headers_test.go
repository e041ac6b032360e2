package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

const hostileSinkSecret = "whsec_ZTJlLXNpbmstc2lnbmluZy1zZWNyZXQ="

// hostileSinkConfig pushes the Stripe source to url with the provider's headers.
func hostileSinkConfig(url string) string {
	return stripeSource + fmt.Sprintf(`destinations:
  - name: sink
    url: %q
    secret: %q
    sources: [stripe]
    forward_headers: true
    backoff: [100ms]
`, url, hostileSinkSecret)
}

// hostileForgedHeaders are provider headers crafted to pass for the relay's own,
// for the Standard Webhooks headers under another spelling, or to ride
// along as hop-by-hop or credential headers.
var hostileForgedHeaders = http.Header{
	"Webhook-Id":          {"msg_forged"},
	"Webhook-Timestamp":   {"1"},
	"Webhook-Signature":   {"v1,Zm9yZ2VkLXNpZ25hdHVyZQ=="},
	"Webhook_signature":   {"v1,Zm9yZ2VkLXVuZGVyc2NvcmU="},
	"Webhook_id":          {"msg_forged_underscore"},
	"Svix-Id":             {"msg_forged_svix"},
	"Svix-Timestamp":      {strconv.FormatInt(time.Now().Unix(), 10)},
	"Svix-Signature":      {"v1,Zm9yZ2VkLXN2aXg="},
	"Hookrelay-Replay":    {"7"},
	"Hookrelay-Attempt":   {"99"},
	"Hookrelay-Event-Id":  {"evt_forged"},
	"Hookrelay-Source":    {"forged"},
	"Hookrelay-Outcome":   {"skipped"},
	"Hookrelay_replay":    {"8"},
	"Hookrelay_event_id":  {"evt_forged_underscore"},
	"Authorization":       {"Bearer provider-credential"},
	"Cookie":              {"session=provider-cookie"},
	"Connection":          {"X-Hop-Secret"},
	"X-Hop-Secret":        {"hop-by-hop"},
	"X-Long":              {strings.Repeat("L", 16<<10)},
	"X-Odd!#$%&'*+.^_`|~": {"unusual but valid name"},
	"X-Utf8":              {"caf\xc3\xa9 \t tab"},
}

// hostileBenignHeaders are provider headers the destination must get unchanged.
var hostileBenignHeaders = []string{"X-Long", "X-Odd!#$%&'*+.^_`|~", "X-Utf8"}

// TestHostileForwardedHeaders stores an event whose provider headers try
// to smuggle headers to a destination that forwards them, over a chunked
// body and with a forged Host, and checks what the destination receives:
// hookrelay's own webhook-* and hookrelay-* headers, signed validly,
// none of the forgeries under any spelling a consumer's framework might
// confuse with them, no credential or hop-by-hop header, its own Host and
// Content-Length, and the benign provider headers intact.
func TestHostileForwardedHeaders(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, nil)
			db := driver.URL(t)
			p := startRelay(t, db, hostileSinkConfig(rec.srv.URL+"/hook"), stripeEnv)

			body := stripeEvent("evt_headers_1", `"data":{"object":{"id":"in_1"}}`)
			req := hostileStripe(t, p, body, hostileForgedHeaders)
			req.Host = "forged.example"
			// A reader of unknown length makes the client send the body
			// chunked, so the relay sees Transfer-Encoding: chunked.
			req.Body, req.ContentLength = io.NopCloser(strings.NewReader(string(body))), -1
			status, _, answer, err := hostileDo(http.DefaultClient, req)
			if err != nil || status != 200 {
				t.Fatalf("post: %d %s %v", status, answer, err)
			}

			got := rec.waitReceived(t, 1, 20*time.Second)[0]
			ev, err := openStore(t, db).EventByProviderID(context.Background(), "stripe", "evt_headers_1")
			if err != nil {
				t.Fatal(err)
			}
			h := got.header

			verifier, err := signature.New(signature.Options{Scheme: "standard", Secrets: []string{hostileSinkSecret}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = verifier.Verify(signature.Request{Header: h, Body: got.body, Now: time.Now()})
			if err != nil {
				t.Errorf("destination cannot verify the delivery: %v", err)
			}
			valid := err == nil
			if string(got.body) != string(body) {
				t.Errorf("destination got body %q, want %q", got.body, body)
			}
			wantOwn := map[string]string{
				"Webhook-Id":         ev.ID,
				"Hookrelay-Replay":   "0",
				"Hookrelay-Attempt":  "1",
				"Hookrelay-Event-Id": "evt_headers_1",
				"Hookrelay-Source":   "stripe",
				"Content-Length":     strconv.Itoa(len(body)),
			}
			for k, want := range wantOwn {
				if v := h.Values(k); len(v) != 1 || v[0] != want {
					t.Errorf("destination got %s: %q, want exactly %q", k, v, want)
				}
			}
			if sig := h.Values("Webhook-Signature"); len(sig) != 1 || strings.Contains(sig[0], "Zm9yZ2Vk") {
				t.Errorf("destination got webhook-signature %q", sig)
			}
			u, _ := url.Parse(rec.srv.URL)
			if got.host != u.Host {
				t.Errorf("destination got Host %q, want its own %q", got.host, u.Host)
			}
			// No header the provider sent under the relay's names, in any
			// spelling that CGI, WSGI or Rack would fold onto them.
			smuggled := 0
			for k, vs := range h {
				folded := strings.ToLower(strings.ReplaceAll(k, "_", "-"))
				own := strings.HasPrefix(folded, "webhook-") || strings.HasPrefix(folded, "hookrelay-") || strings.HasPrefix(folded, "svix-")
				if own && k != http.CanonicalHeaderKey(folded) {
					t.Errorf("destination got %s: %q, a spelling of one of the relay's headers", k, vs)
					smuggled++
				}
				if own && strings.HasPrefix(folded, "svix-") {
					t.Errorf("destination got %s: %q; a Svix library would verify it instead of webhook-signature", k, vs)
					smuggled++
				}
				for _, v := range vs {
					if strings.Contains(v, "forged") || strings.Contains(v, "Zm9yZ2Vk") {
						t.Errorf("destination got the provider's forgery %s: %q", k, v)
						smuggled++
					}
				}
			}
			for _, k := range []string{"Authorization", "Cookie", "X-Hop-Secret", "Connection", "Transfer-Encoding", "Hookrelay-Outcome"} {
				if v := h.Values(k); len(v) > 0 {
					t.Errorf("destination got %s: %q", k, v)
					smuggled++
				}
			}
			for _, k := range hostileBenignHeaders {
				if v := h.Values(k); len(v) != 1 || v[0] != hostileForgedHeaders.Get(k) {
					t.Errorf("destination got %s: %.40q, want the provider's value", k, v)
				}
			}
			t.Logf("RELIABILITY forwarded-headers driver=%s crafted_headers=%d delivered=1 valid_signature=%v smuggled=%d benign_forwarded=%d",
				driver.Name, len(hostileForgedHeaders), valid, smuggled, len(hostileBenignHeaders))
		})
	}
}
