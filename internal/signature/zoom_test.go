package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

var zoomCase = schemeCase{
	opts:        Options{Scheme: "zoom"},
	secret:      plainSecret,
	timestamped: true,
	required:    []string{"x-zm-signature", "x-zm-request-timestamp"},
	malform: func(h http.Header) {
		h.Set("x-zm-signature", strings.TrimPrefix(h.Get("x-zm-signature"), "v0="))
	},
	malformedErr: ErrMalformedSignature,
}

func TestZoomVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, zoomCase)
}

func TestZoomVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "zoom"}, nil, nil, "zoom")
}

func TestZoomIdentify(t *testing.T) {
	t.Parallel()
	body := `{"event":"meeting.started","event_ts":1700000000123,"payload":{}}`
	runIdentityCases(t, []identityCase{
		{name: "event", opts: Options{Scheme: "zoom"}, body: body,
			want: Identity{ID: hashOf(body), Origin: "hash", Type: "meeting.started", OccurredAt: time.UnixMilli(1700000000123)}},
	})
}

// TestZoomURLValidation answers the challenge with the HMAC of the plain
// token keyed with the secret that signed the request, here in slot 1.
func TestZoomURLValidation(t *testing.T) {
	t.Parallel()
	body := []byte(`{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"}`)
	req := zoomCase.signed(t, []string{"old", "new"}, 1, body, testNow)
	s, err := New(zoomCase.with("old", "new"))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Verify(req); err != nil || res.Slot != 1 {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	h, ok := s.Handshake(req)
	if !ok || h.ContentType != "application/json" {
		t.Fatalf("Handshake = %+v, %v", h, ok)
	}
	var got map[string]string
	if err := json.Unmarshal(h.Body, &got); err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, []byte(plainSecret("new")))
	m.Write([]byte("qgg8vlvZRS6UYooatFL8Aw"))
	if got["plainToken"] != "qgg8vlvZRS6UYooatFL8Aw" || got["encryptedToken"] != hex.EncodeToString(m.Sum(nil)) || len(got) != 2 {
		t.Errorf("answer %s", h.Body)
	}
	// An ordinary event is not a handshake.
	if _, ok := s.Handshake(zoomCase.signed(t, []string{"new"}, 0, spacedBody, testNow)); ok {
		t.Error("an ordinary event was answered as a handshake")
	}
}
