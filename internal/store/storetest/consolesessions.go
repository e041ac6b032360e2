package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// consoleSession returns a session of token opened at at for ttl, keyed
// by the digest of name.
func consoleSession(name, token string, at time.Time, ttl time.Duration) store.ConsoleSession {
	key := sha256.Sum256([]byte("cookie-" + name))
	binding := sha256.Sum256([]byte("binding-" + name))
	return store.ConsoleSession{
		Key: key[:], Token: token, Role: "admin", Binding: binding[:],
		CreatedAt: at, ExpiresAt: at.Add(ttl),
	}
}

// openConsoleSession calls OpenConsoleSession and fails the test on error.
func openConsoleSession(t *testing.T, s store.DB, cs store.ConsoleSession, keep int) {
	t.Helper()
	if err := s.OpenConsoleSession(context.Background(), cs, keep); err != nil {
		t.Fatalf("OpenConsoleSession(%s): %v", cs.Token, err)
	}
}

// liveConsoleSession reports whether the session of key opens at now,
// failing the test on an error other than ErrNotFound.
func liveConsoleSession(t *testing.T, s store.DB, key []byte, now time.Time) bool {
	t.Helper()
	_, err := s.ConsoleSession(context.Background(), key, now)
	switch {
	case err == nil:
		return true
	case errors.Is(err, store.ErrNotFound):
		return false
	}
	t.Fatalf("ConsoleSession: %v", err)
	return false
}

// testConsoleSessionRoundTrip checks that a console session reads back
// as opened, that its flash is taken once, that touching it moves its
// SeenAt on and never back, and that ending it — twice, or an unknown
// one — ends it for every later read.
func testConsoleSessionRoundTrip(t *testing.T, s store.DB) {
	ctx := context.Background()
	cs := consoleSession("a", "ops", baseTime, 12*time.Hour)
	cs.Role = "read"
	cs.SeenAt = baseTime.Add(time.Hour) // ignored: a new session is seen when opened
	openConsoleSession(t, s, cs, 64)

	got, err := s.ConsoleSession(ctx, cs.Key, baseTime)
	if err != nil {
		t.Fatalf("ConsoleSession: %v", err)
	}
	if !bytes.Equal(got.Key, cs.Key) || got.Token != "ops" || got.Role != "read" || !bytes.Equal(got.Binding, cs.Binding) || got.Flash != "" {
		t.Errorf("ConsoleSession = %+v, want %+v", got, cs)
	}
	checkTime(t, "CreatedAt", got.CreatedAt, baseTime)
	checkTime(t, "SeenAt", got.SeenAt, baseTime)
	checkTime(t, "ExpiresAt", got.ExpiresAt, cs.ExpiresAt)

	if err := s.SetConsoleFlash(ctx, cs.Key, "Replay done."); err != nil {
		t.Fatalf("SetConsoleFlash: %v", err)
	}
	if got, _ := s.ConsoleSession(ctx, cs.Key, baseTime); got.Flash != "Replay done." {
		t.Errorf("Flash = %q after SetConsoleFlash", got.Flash)
	}
	for i, tc := range []struct {
		msg  string
		want bool
	}{{"Another message.", false}, {"Replay done.", true}, {"Replay done.", false}, {"", false}} {
		if took, err := s.TakeConsoleFlash(ctx, cs.Key, tc.msg); err != nil || took != tc.want {
			t.Errorf("TakeConsoleFlash #%d (%q) = %v, %v; want %v", i, tc.msg, took, err, tc.want)
		}
	}
	if got, _ := s.ConsoleSession(ctx, cs.Key, baseTime); got.Flash != "" {
		t.Errorf("Flash = %q after it was taken", got.Flash)
	}

	seen := baseTime.Add(10 * time.Minute)
	for _, at := range []time.Time{seen, baseTime.Add(time.Minute)} {
		if err := s.TouchConsoleSession(ctx, cs.Key, at); err != nil {
			t.Fatalf("TouchConsoleSession: %v", err)
		}
	}
	got, _ = s.ConsoleSession(ctx, cs.Key, baseTime)
	checkTime(t, "SeenAt after two touches", got.SeenAt, seen)

	unknown := sha256.Sum256([]byte("never opened"))
	if live := liveConsoleSession(t, s, unknown[:], baseTime); live {
		t.Error("a key never opened reads as a session")
	}
	for i := range 2 {
		if err := s.EndConsoleSession(ctx, cs.Key); err != nil {
			t.Fatalf("EndConsoleSession #%d: %v", i+1, err)
		}
	}
	if liveConsoleSession(t, s, cs.Key, baseTime) {
		t.Error("an ended session still reads")
	}
	// Changes to a session that has ended are no error, and bring it
	// not back.
	for name, err := range map[string]error{
		"TouchConsoleSession": s.TouchConsoleSession(ctx, cs.Key, seen.Add(time.Minute)),
		"SetConsoleFlash":     s.SetConsoleFlash(ctx, cs.Key, "late"),
		"EndConsoleSession":   s.EndConsoleSession(ctx, unknown[:]),
	} {
		if err != nil {
			t.Errorf("%s of an ended session: %v", name, err)
		}
	}
	if took, err := s.TakeConsoleFlash(ctx, cs.Key, "late"); took || err != nil {
		t.Errorf("TakeConsoleFlash of an ended session = %v, %v; want false, nil", took, err)
	}
	if liveConsoleSession(t, s, cs.Key, baseTime) {
		t.Error("an ended session reads again after it was changed")
	}
}

// testConsoleSessionExpiry checks that a session reads until its expiry
// and not from it, and that a later log in deletes the expired sessions:
// read with a time before its expiry, one no longer reads.
func testConsoleSessionExpiry(t *testing.T, s store.DB) {
	short := consoleSession("short", "ops", baseTime, time.Hour)
	long := consoleSession("long", "dashboard", baseTime, 3*time.Hour)
	openConsoleSession(t, s, short, 64)
	openConsoleSession(t, s, long, 64)
	end := short.ExpiresAt
	if !liveConsoleSession(t, s, short.Key, end.Add(-time.Microsecond)) {
		t.Error("a session does not read before its expiry")
	}
	if liveConsoleSession(t, s, short.Key, end) {
		t.Error("a session reads at its expiry")
	}
	if !liveConsoleSession(t, s, short.Key, baseTime) {
		t.Fatal("an expired session's row went before any log in")
	}

	openConsoleSession(t, s, consoleSession("later", "other", end, time.Hour), 64)
	if liveConsoleSession(t, s, short.Key, baseTime) {
		t.Error("a log in after a session expired left its row")
	}
	if !liveConsoleSession(t, s, long.Key, baseTime) {
		t.Error("a log in deleted a session that had not expired")
	}
}

// testConsoleSessionTrim checks that a token's log ins keep its newest
// sessions up to the bound and end its oldest, never another token's.
func testConsoleSessionTrim(t *testing.T, s store.DB) {
	const keep = 3
	other := consoleSession("other", "dashboard", baseTime, time.Hour)
	openConsoleSession(t, s, other, keep)
	var mine []store.ConsoleSession
	for i := range keep + 2 {
		cs := consoleSession(fmt.Sprint("ops-", i), "ops", baseTime.Add(time.Duration(i)*time.Second), time.Hour)
		openConsoleSession(t, s, cs, keep)
		mine = append(mine, cs)
	}
	for i, cs := range mine {
		if got, want := liveConsoleSession(t, s, cs.Key, baseTime), i >= 2; got != want {
			t.Errorf("session %d of %d of one token: live %v, want %v", i+1, len(mine), got, want)
		}
	}
	if !liveConsoleSession(t, s, other.Key, baseTime) {
		t.Error("one token's log ins ended another token's session")
	}
}
