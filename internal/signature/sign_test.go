package signature

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// signOptions has one configuration of every scheme for the round trips.
func signOptions() []Options {
	return []Options{
		{Scheme: "stripe", Secrets: []string{"whsec_a", "whsec_b"}},
		{Scheme: "github", Secrets: []string{"a", "b"}},
		{Scheme: "github", Secrets: []string{"a", "b"}, AllowSHA1: true},
		{Scheme: "shopify", Secrets: []string{"a", "b"}},
		{Scheme: "standard", Secrets: []string{whsecSecret("a"), whsecSecret("b")}},
		{Scheme: "slack", Secrets: []string{"a", "b"}},
		{Scheme: "gitlab", Secrets: []string{"a", "b"}},
		{Scheme: "hmac", Secrets: []string{"a", "b"}, IDHeader: "X-Id", TypeHeader: "X-Type",
			HMAC: HMACOptions{Header: "X-Sig", Algorithm: "sha512", Encoding: "base64", Prefix: "s=",
				TimestampHeader: "X-Ts", SignedContent: "{id}|{timestamp}|{body}"}},
		{Scheme: "none", IDHeader: "X-Id", TypeHeader: "X-Type"},
	}
}

// TestSignRoundTrip checks that what Sign produces verifies, with the
// slot it was signed with, and identifies as the message.
func TestSignRoundTrip(t *testing.T) {
	t.Parallel()
	// Stripe reads id, Slack event_id: the body carries both.
	body := []byte(`{"id":"evt_1","event_id":"evt_1","type":"invoice.paid","created":1700000000}`)
	msg := Message{ID: "evt_1", Type: "invoice.paid", Body: body, Now: testNow.Add(-time.Second)}
	for _, o := range signOptions() {
		s, err := New(o)
		if err != nil {
			t.Fatalf("New(%s): %v", o.Scheme, err)
		}
		for slot := range max(len(o.Secrets), 1) {
			if o.Scheme == "none" {
				slot = store.NoSlot
			}
			h, err := Sign(o, slot, msg)
			if err != nil {
				t.Fatalf("Sign(%s, %d): %v", o.Scheme, slot, err)
			}
			req := Request{Header: h, Body: body, Now: testNow}
			res, err := s.Verify(req)
			if err != nil || res.Slot != slot {
				t.Errorf("%s slot %d: Verify = %+v, %v", o.Scheme, slot, res, err)
			}
			id, err := s.Identify(req)
			if err != nil || id.ID != msg.ID || id.Type != msg.Type {
				t.Errorf("%s: Identify = %+v, %v; want id %q type %q", o.Scheme, id, err, msg.ID, msg.Type)
			}
		}
	}
}

func TestSignHeaders(t *testing.T) {
	t.Parallel()
	msg := Message{ID: "m1", Type: "orders/create", Body: []byte(`{}`), Now: testNow}
	tests := []struct {
		opts Options
		want []string
	}{
		{Options{Scheme: "github", Secrets: []string{"a"}, AllowSHA1: true},
			[]string{"X-Hub-Signature-256", "X-Hub-Signature", "X-GitHub-Delivery", "X-GitHub-Event"}},
		{Options{Scheme: "shopify", Secrets: []string{"a"}},
			[]string{"X-Shopify-Hmac-Sha256", "X-Shopify-Webhook-Id", "X-Shopify-Topic", "X-Shopify-Triggered-At"}},
		{Options{Scheme: "standard", Secrets: []string{whsecSecret("a")}},
			[]string{"webhook-id", "webhook-timestamp", "webhook-signature"}},
		{Options{Scheme: "gitlab", Secrets: []string{"a"}},
			[]string{"X-Gitlab-Token", "X-Gitlab-Event", "Idempotency-Key"}},
		{Options{Scheme: "slack", Secrets: []string{"a"}},
			[]string{"X-Slack-Signature", "X-Slack-Request-Timestamp"}},
	}
	for _, tt := range tests {
		h, err := Sign(tt.opts, 0, msg)
		if err != nil {
			t.Fatalf("Sign(%s): %v", tt.opts.Scheme, err)
		}
		for _, name := range tt.want {
			if h.Get(name) == "" {
				t.Errorf("Sign(%s) lacks %s: %v", tt.opts.Scheme, name, h)
			}
		}
	}
}

func TestSignErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		slot int
		msg  Message
	}{
		{"slot out of range", Options{Scheme: "stripe", Secrets: []string{"a"}}, 1, Message{}},
		{"negative slot", Options{Scheme: "slack", Secrets: []string{"a"}}, -1, Message{}},
		{"empty slot", Options{Scheme: "shopify", Secrets: []string{"", "b"}}, 0, Message{}},
		{"gitlab empty slot", Options{Scheme: "gitlab", Secrets: []string{"", "b"}}, 0, Message{}},
		{"github without id", Options{Scheme: "github", Secrets: []string{"a"}}, 0, Message{Type: "push"}},
		{"standard without id", Options{Scheme: "standard", Secrets: []string{whsecSecret("a")}}, 0, Message{}},
		{"hmac template id without id", Options{Scheme: "hmac", Secrets: []string{"a"}, IDHeader: "X-Id",
			HMAC: HMACOptions{Header: "X-Sig", SignedContent: "{id}.{body}"}}, 0, Message{}},
		{"unknown scheme", Options{Scheme: "nope"}, 0, Message{}},
	}
	for _, tt := range tests {
		if _, err := Sign(tt.opts, tt.slot, tt.msg); err == nil {
			t.Errorf("%s: Sign succeeded", tt.name)
		}
	}
}

// TestSignStandard checks the delivery signature against the Standard
// Webhooks reference vector and against the standard scheme.
func TestSignStandard(t *testing.T) {
	t.Parallel()
	for _, v := range vectorsOf(t, "standard-webhooks") {
		if v.Name != "standardwebhooks-sign-vector" && v.Name != "standardwebhooks-unprefixed-secret" {
			continue
		}
		got, err := SignStandard(v.Secret, v.Headers["webhook-id"], time.Unix(v.Now, 0), []byte(v.Body))
		if err != nil || got != v.Headers["webhook-signature"] {
			t.Errorf("%s: SignStandard = %q, %v; want %q", v.Name, got, err, v.Headers["webhook-signature"])
		}
	}
	secret := whsecSecret("dest")
	sig, err := SignStandard(secret, "evt_1", testNow, spacedBody)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("webhook-id", "evt_1")
	h.Set("webhook-timestamp", formatUnix(testNow))
	h.Set("webhook-signature", sig)
	if _, err := verify(t, Options{Scheme: "standard", Secrets: []string{secret}}, Request{Header: h, Body: spacedBody, Now: testNow}); err != nil {
		t.Errorf("Verify(SignStandard): %v", err)
	}
	for _, bad := range []string{"", "whsec_***"} {
		if _, err := SignStandard(bad, "evt_1", testNow, spacedBody); err == nil {
			t.Errorf("SignStandard with secret %q succeeded", bad)
		}
	}
	if _, err := SignStandard(secret, "", testNow, spacedBody); err == nil {
		t.Error("SignStandard without an id succeeded")
	}
	if _, err := SignStandard("", "evt_1", testNow, spacedBody); !errors.Is(err, ErrNoSecret) {
		t.Errorf("SignStandard without a secret: %v; want ErrNoSecret", err)
	}
}

// TestVerifyConcurrently shares one Scheme, and so its pooled HMAC states,
// between goroutines verifying different bodies with different slots.
func TestVerifyConcurrently(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "stripe", Secrets: []string{"whsec_a", "whsec_b", "whsec_c"}}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				slot := (g + i) % len(o.Secrets)
				body := []byte(fmt.Sprintf(`{"id":"evt_%d_%d"}`, g, i))
				h, err := Sign(o, slot, Message{Body: body, Now: testNow})
				if err != nil {
					t.Error(err)
					return
				}
				if res, err := s.Verify(Request{Header: h, Body: body, Now: testNow}); err != nil || res.Slot != slot {
					t.Errorf("Verify = %+v, %v; want slot %d", res, err, slot)
					return
				}
			}
		})
	}
	wg.Wait()
}
