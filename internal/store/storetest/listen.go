package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

// listenUnique listens for s's notifications until the test ends, and
// returns a prefix for the destination names the test uses: the channel
// is the database's, so other tests' names come on it too. ok is false on
// a driver without a listener.
func listenUnique(t *testing.T, s store.DB) (ch <-chan string, prefix string, ok bool) {
	t.Helper()
	if !s.SupportsListener() {
		return nil, "", false
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := s.Listen(ctx)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return ch, hex.EncodeToString(b) + "_", true
}
