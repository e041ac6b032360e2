package console

import (
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
)

// TestSessionsExpireAndEvictInOrder drives the session table with a
// clock of its own: sessions expire a ttl after their log in, a token at
// its bound loses its own oldest session, and every way out (expiry,
// eviction, log out) leaves no trace in the lists that order them.
func TestSessionsExpireAndEvictInOrder(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ss := newSessions(time.Hour, func() time.Time { return now })
	admin := &config.Token{Name: "ops", Role: config.RoleAdmin}
	reader := &config.Token{Name: "dashboard", Role: config.RoleRead}

	adminID, _ := ss.open(admin)
	var readerIDs []string
	for range maxSessionsPerToken + 3 {
		now = now.Add(time.Second)
		id, _ := ss.open(reader)
		readerIDs = append(readerIDs, id)
	}
	for i, id := range readerIDs {
		if _, ok := ss.get(id); ok != (i >= 3) {
			t.Errorf("reader session %d live %v, want %v", i, ok, i >= 3)
		}
	}
	if _, ok := ss.get(adminID); !ok {
		t.Fatal("the admin's session was evicted by the reader's logins")
	}
	ss.end(readerIDs[3])
	if _, ok := ss.get(readerIDs[3]); ok {
		t.Error("a logged-out session still opens")
	}

	// An hour after the admin's log in, its session is gone; the reader's,
	// opened a second or more later, are not yet.
	now = now.Add(time.Hour - time.Duration(maxSessionsPerToken+3)*time.Second)
	if _, ok := ss.get(adminID); ok {
		t.Error("the admin's session outlived its ttl")
	}
	if _, ok := ss.get(readerIDs[len(readerIDs)-1]); !ok {
		t.Error("the newest reader session expired early")
	}
	now = now.Add(time.Hour)
	ss.open(admin)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.byID) != 1 || ss.order.Len() != 1 || len(ss.byToken) != 1 || ss.byToken["ops"].Len() != 1 {
		t.Errorf("after every other session expired: %d sessions, %d in order, %d tokens", len(ss.byID), ss.order.Len(), len(ss.byToken))
	}
}
