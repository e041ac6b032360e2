package loadgen

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// verifyStripe checks a Stripe-Signature header over body the way Stripe
// documents it, independently of the feed's code.
func verifyStripe(t *testing.T, secret, header string, body []byte) {
	t.Helper()
	var ts, v1 string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		t.Fatalf("signature %q: bad timestamp", header)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	if want := hex.EncodeToString(mac.Sum(nil)); v1 != want {
		t.Fatalf("signature %q: v1 = %s, want %s", header, v1, want)
	}
}

// verifyWithScheme checks r the way the relay's receiver does.
func verifyWithScheme(t *testing.T, secret string, r Request, now time.Time, wantID, wantType string) {
	t.Helper()
	scheme, err := signature.New(signature.Options{Scheme: "stripe", Secrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	req := signature.Request{Header: r.Header, Body: r.Body, Now: now}
	if res, err := scheme.Verify(req); err != nil || res.Slot != 0 {
		t.Fatalf("Verify = %+v, %v", res, err)
	}
	id, err := scheme.Identify(req)
	if err != nil || id.ID != wantID || id.Type != wantType {
		t.Fatalf("Identify = %+v, %v; want id %q type %q", id, err, wantID, wantType)
	}
}

func TestNewStripeFeedRefusesEmptySecret(t *testing.T) {
	t.Parallel()
	if _, err := NewStripeFeed("", 2048); err == nil {
		t.Fatal("NewStripeFeed with no secret: want an error")
	}
}

func TestStripeFeed(t *testing.T) {
	t.Parallel()
	const secret = "whsec_feed_test"
	tests := []struct {
		name     string
		size     int
		prebuilt int
		wantSize int
	}{
		{name: "2KiB built on demand", size: 2048, wantSize: 2048},
		{name: "2KiB prebuilt", size: 2048, prebuilt: 5, wantSize: 2048},
		{name: "partly prebuilt", size: 4096, prebuilt: 3, wantSize: 4096},
		{name: "too small is raised", size: 10, wantSize: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFeed(t, secret, tt.size)
			f.now = func() time.Time { return time.Unix(1700000000, 0) }
			if tt.prebuilt > 0 {
				f.Prebuild(tt.prebuilt)
			}
			if tt.wantSize > 0 && f.Size() != tt.wantSize {
				t.Fatalf("Size() = %d, want %d", f.Size(), tt.wantSize)
			}
			s := f.Stream()
			seen := map[string]bool{}
			for i := range int64(8) {
				r := s.Request(i)
				if len(r.Body) != f.Size() {
					t.Fatalf("request %d: body is %d bytes, want %d", i, len(r.Body), f.Size())
				}
				var ev struct{ ID, Type, Object string }
				if err := json.Unmarshal(r.Body, &ev); err != nil {
					t.Fatalf("request %d: body is not JSON: %v", i, err)
				}
				if ev.ID != EventID(i) || ev.Type == "" || ev.Object != "event" {
					t.Fatalf("request %d: id %q type %q object %q, want id %q", i, ev.ID, ev.Type, ev.Object, EventID(i))
				}
				if seen[ev.ID] {
					t.Fatalf("request %d: id %q repeated", i, ev.ID)
				}
				seen[ev.ID] = true
				if got := r.Header.Get("Content-Type"); got != "application/json" {
					t.Fatalf("request %d: Content-Type %q", i, got)
				}
				verifyStripe(t, secret, r.Header.Get("Stripe-Signature"), r.Body)
				verifyWithScheme(t, secret, r, time.Unix(1700000000, 0), EventID(i), ev.Type)
			}
		})
	}
}

func TestStripeFeedSameRequestsForEveryStream(t *testing.T) {
	t.Parallel()
	f := newFeed(t, "whsec_x", 512)
	f.now = func() time.Time { return time.Unix(1700000000, 0) }
	a, b := f.Stream(), f.Stream()
	for i := range int64(4) {
		ra, rb := a.Request(i), b.Request(i)
		if string(ra.Body) != string(rb.Body) || ra.Header.Get("Stripe-Signature") != rb.Header.Get("Stripe-Signature") {
			t.Fatalf("request %d differs between streams", i)
		}
	}
}
