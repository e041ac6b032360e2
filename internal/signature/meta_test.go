package signature

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

var metaCase = schemeCase{
	opts:     Options{Scheme: "meta", VerifyToken: "meta-verify-token"},
	secret:   plainSecret,
	required: []string{"X-Hub-Signature-256"},
	malform: func(h http.Header) {
		h.Set("X-Hub-Signature-256", strings.Replace(h.Get("X-Hub-Signature-256"), "sha256=", "sha1=", 1))
	},
	malformedErr: ErrMalformedSignature,
}

func TestMetaVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, metaCase)
}

// TestMetaSubscription checks the GET Meta sends to subscribe a callback
// URL: it verifies only with the configured verify token, and only a
// verified one is answered with its challenge.
func TestMetaSubscription(t *testing.T) {
	t.Parallel()
	s, err := New(metaCase.with("a"))
	if err != nil {
		t.Fatal(err)
	}
	if !s.AcceptsGET() {
		t.Fatal("meta does not accept GET")
	}
	for _, tt := range []struct {
		name, query string
		err         error
	}{
		{"genuine", "hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meta-verify-token", nil},
		{"wrong token", "hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess", ErrMismatch},
		{"no token", "hub.mode=subscribe&hub.challenge=1158201444", ErrMissingSignature},
		{"no challenge", "hub.mode=subscribe&hub.verify_token=meta-verify-token", ErrMissingSignature},
		{"other mode", "hub.mode=unsubscribe&hub.challenge=1&hub.verify_token=meta-verify-token", ErrMalformedSignature},
		{"bad query", "hub.mode=%zz", ErrMalformedSignature},
	} {
		req := Request{Method: http.MethodGet, RawQuery: tt.query, Header: http.Header{}, Now: testNow}
		res, err := s.Verify(req)
		if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) || res.Slot != store.NoSlot {
			t.Errorf("%s: Verify = %+v, %v; want %v", tt.name, res, err, tt.err)
			continue
		}
		if err == nil {
			h, ok := s.Handshake(req)
			if !ok || string(h.Body) != "1158201444" || h.ContentType != "text/plain" {
				t.Errorf("%s: Handshake = %q, %v", tt.name, h.Body, ok)
			}
		}
	}
	noToken, err := New(Options{Scheme: "meta", Secrets: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Method: http.MethodGet, RawQuery: "hub.mode=subscribe&hub.challenge=1&hub.verify_token=", Header: http.Header{}}
	if _, err := noToken.Verify(req); !errors.Is(err, ErrNoSecret) {
		t.Errorf("without verify_token: %v; want ErrNoSecret", err)
	}
	// A POST is never a subscription handshake.
	if _, ok := s.Handshake(metaCase.signed(t, []string{"a"}, 0, spacedBody, testNow)); ok {
		t.Error("a POST was answered as a handshake")
	}
}

func TestMetaIdentify(t *testing.T) {
	t.Parallel()
	body := `{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[]}]}`
	runIdentityCases(t, []identityCase{
		{name: "batch", opts: Options{Scheme: "meta"}, body: body,
			want: Identity{ID: hashOf(body), Origin: store.IDFromHash, Type: "whatsapp_business_account"}},
	})
}
