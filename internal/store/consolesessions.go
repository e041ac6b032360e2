package store

import (
	"context"
	"time"
)

// ConsoleSession is one web console session as the database keeps it, so
// that every relay on the database knows it. It holds no secret: neither
// the cookie's value nor the token's.
type ConsoleSession struct {
	// Key is the SHA-256 of the session's cookie value: the cookie finds
	// its session, the row gives no cookie.
	Key []byte
	// Token is the name of the token the session was opened with, and
	// Role that token's role then.
	Token string
	Role  string
	// Binding is a digest of the cookie value and the token's secret, by
	// which a relay tells that the token of its own config is still the
	// one the session was opened with; without the cookie it tells
	// nothing of the secret.
	Binding []byte
	// Flash is a message to show once on the session's next page, or "".
	Flash string
	// CreatedAt is when the session was opened, SeenAt when a relay last
	// recorded it in use, and ExpiresAt when it ends whatever its use.
	CreatedAt, SeenAt, ExpiresAt time.Time
}

// ConsoleSessions keeps the web console's sessions. A session opened
// through one relay opens the console of every relay on the database,
// and ending it ends it on all of them at once: each request reads its
// session here.
type ConsoleSessions interface {
	// OpenConsoleSession stores s, opened at s.CreatedAt, with SeenAt
	// set to CreatedAt. In the same transaction it deletes the sessions
	// that have expired at s.CreatedAt and, of s.Token's sessions, all
	// but the newest keep (s among them, by CreatedAt): a token's logins
	// end its own oldest sessions, never another token's. Two logins of
	// one token at once may leave it one session more for a while; the
	// next login trims it. It returns an error wrapping ErrUnavailable
	// when the database cannot be written.
	OpenConsoleSession(ctx context.Context, s ConsoleSession, keep int) error

	// ConsoleSession returns the session whose Key is key if it expires
	// after now, and ErrNotFound if there is none (never opened, ended,
	// trimmed or expired). It reads one row by its primary key.
	ConsoleSession(ctx context.Context, key []byte, now time.Time) (ConsoleSession, error)

	// TouchConsoleSession records the session whose Key is key as seen at
	// now. An unknown key is no error: the session has ended.
	TouchConsoleSession(ctx context.Context, key []byte, now time.Time) error

	// SetConsoleFlash keeps msg to show once on the session's next page,
	// replacing the one it held. An unknown key is no error.
	SetConsoleFlash(ctx context.Context, key []byte, msg string) error

	// TakeConsoleFlash clears the session's flash if it still is msg and
	// reports whether it did: of two pages that read the same flash, one
	// shows it.
	TakeConsoleFlash(ctx context.Context, key []byte, msg string) (bool, error)

	// EndConsoleSession deletes the session whose Key is key, so that no
	// relay opens it again. Ending an unknown or ended session is no
	// error.
	EndConsoleSession(ctx context.Context, key []byte) error
}
