package storetest

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testSignatureReused checks the lookup behind the re-posted body-only
// signature rule: a digest is found under another provider id of the same
// source, received within the window; never under the event's own id, on
// another source, before the window, or for events stored without one.
func testSignatureReused(t *testing.T, s store.DB) {
	ctx := context.Background()
	digest := func(s string) []byte { d := sha256.Sum256([]byte(s)); return d[:] }
	first := newEvent("github", "delivery-1")
	other := newEvent("github", "delivery-2")
	plain := newEvent("github", "delivery-3")
	elsewhere := newEvent("shop", "webhook-1")
	withDigest := func(e store.Event, d []byte) store.IngestItem {
		it := item(e, "billing")
		it.SignatureDigest = d
		return it
	}
	checkInserted(t, ingest(t, s,
		withDigest(first, digest("a")),
		withDigest(other, digest("b")),
		item(plain, "billing"),
		withDigest(elsewhere, digest("c")),
	), true, true, true, true)

	window := first.ReceivedAt.Add(-time.Minute)
	cases := []struct {
		name       string
		source     string
		digest     []byte
		providerID string
		since      time.Time
		want       bool
	}{
		{"another id, same digest", "github", digest("a"), "delivery-9", window, true},
		{"the same id", "github", digest("a"), "delivery-1", window, false},
		{"another digest", "github", digest("z"), "delivery-9", window, false},
		{"another source", "shop", digest("a"), "delivery-9", window, false},
		{"the other source's own digest", "shop", digest("c"), "webhook-2", window, true},
		{"received before the window", "github", digest("a"), "delivery-9", first.ReceivedAt.Add(time.Hour), false},
	}
	for _, c := range cases {
		got, err := s.SignatureReused(ctx, store.SignatureQuery{Source: c.source, Digest: c.digest, ProviderEventID: c.providerID, Since: c.since})
		if err != nil {
			t.Fatalf("%s: SignatureReused: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: SignatureReused = %t, want %t", c.name, got, c.want)
		}
	}
	// A retry of an event stored with a digest is still a duplicate.
	checkInserted(t, ingest(t, s, withDigest(newEvent("github", "delivery-1"), digest("a"))), false)
}
