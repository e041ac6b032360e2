package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// A resume tells the listeners, on a driver that has them, that the
// destination's deliveries may be claimed again, as an Ingest tells them
// of new ones.
func testResumeNotifies(t *testing.T, s store.DB) {
	ch, p, ok := listenUnique(t, s)
	if !ok {
		return
	}
	dest := p + "resumed"
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	for _, paused := range []bool{true, false} {
		if err := s.SetPaused(context.Background(), dest, paused, "ops", now); err != nil {
			t.Fatalf("SetPaused(%v): %v", paused, err)
		}
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case name, ok := <-ch:
			if !ok {
				t.Fatal("notification channel closed")
			}
			if name == dest {
				return
			}
		case <-timeout:
			t.Fatalf("no notification of %s within 10s of its resume", dest)
		}
	}
}
