package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.ConsoleSessions = (*Ops)(nil)

const (
	insertConsoleSession = `INSERT INTO hookrelay.console_sessions
	(key_digest, token, role, binding, flash, created_at, seen_at, expires_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`

	// deleteExpiredConsoleSessions walks console_sessions_expires.
	deleteExpiredConsoleSessions = `DELETE FROM hookrelay.console_sessions WHERE expires_at <= ?`

	// trimConsoleSessions keeps a token's newest ?2 sessions, reading
	// them from console_sessions_token; ties in created_at are broken by
	// the key, so that two trims agree on which to keep.
	trimConsoleSessions = `DELETE FROM hookrelay.console_sessions
WHERE token = ?1 AND key_digest NOT IN (
	SELECT key_digest FROM hookrelay.console_sessions WHERE token = ?1
	ORDER BY created_at DESC, key_digest DESC LIMIT ?2
)`

	// ConsoleSessionLookup is the statement each console request runs:
	// one row by its primary key. It is exported for the drivers' tests
	// of its plan.
	ConsoleSessionLookup = `SELECT token, role, binding, flash, created_at, seen_at, expires_at
FROM hookrelay.console_sessions WHERE key_digest = ? AND expires_at > ?`

	touchConsoleSession = `UPDATE hookrelay.console_sessions SET seen_at = ? WHERE key_digest = ? AND seen_at < ?`

	setConsoleFlash = `UPDATE hookrelay.console_sessions SET flash = ? WHERE key_digest = ?`

	takeConsoleFlash = `UPDATE hookrelay.console_sessions SET flash = '' WHERE key_digest = ? AND flash = ? AND flash <> ''`

	deleteConsoleSession = `DELETE FROM hookrelay.console_sessions WHERE key_digest = ?`
)

// OpenConsoleSession stores s, deleting the expired sessions and s.Token's
// beyond its newest keep, in one transaction.
func (o *Ops) OpenConsoleSession(ctx context.Context, s store.ConsoleSession, keep int) error {
	const what = "open console session"
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	at := o.b.Dialect.Time(s.CreatedAt)
	err = o.b.InTx(ctx, func(tx Conn) error {
		if _, err := tx.Exec(ctx, deleteExpiredConsoleSessions, at); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, insertConsoleSession, s.Key, s.Token, s.Role, s.Binding, s.Flash,
			at, at, o.b.Dialect.Time(s.ExpiresAt)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, trimConsoleSessions, s.Token, keep)
		return err
	})
	if err != nil {
		return o.fail(ctx, what, err)
	}
	return nil
}

// ConsoleSession reads the session whose key is key, unless it has
// expired at now.
func (o *Ops) ConsoleSession(ctx context.Context, key []byte, now time.Time) (store.ConsoleSession, error) {
	const what = "read console session"
	release, err := o.enter()
	if err != nil {
		return store.ConsoleSession{}, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	s := store.ConsoleSession{Key: key}
	err = o.b.Read.QueryRow(ctx, ConsoleSessionLookup, key, o.b.Dialect.Time(now)).Scan(
		&s.Token, &s.Role, &s.Binding, &s.Flash, At(&s.CreatedAt), At(&s.SeenAt), At(&s.ExpiresAt))
	if err != nil {
		return store.ConsoleSession{}, o.fail(ctx, what, err)
	}
	return s, nil
}

// TouchConsoleSession moves the session's SeenAt on to now; never back.
func (o *Ops) TouchConsoleSession(ctx context.Context, key []byte, now time.Time) error {
	at := o.b.Dialect.Time(now)
	return o.writeConsoleSession(ctx, "touch console session", touchConsoleSession, at, key, at)
}

// SetConsoleFlash keeps msg as the session's flash.
func (o *Ops) SetConsoleFlash(ctx context.Context, key []byte, msg string) error {
	return o.writeConsoleSession(ctx, "set console flash", setConsoleFlash, msg, key)
}

// EndConsoleSession deletes the session.
func (o *Ops) EndConsoleSession(ctx context.Context, key []byte) error {
	return o.writeConsoleSession(ctx, "end console session", deleteConsoleSession, key)
}

// TakeConsoleFlash clears the session's flash if it is still msg.
func (o *Ops) TakeConsoleFlash(ctx context.Context, key []byte, msg string) (bool, error) {
	const what = "take console flash"
	release, err := o.enter()
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	n, err := o.b.Write.Exec(ctx, takeConsoleFlash, key, msg)
	if err != nil {
		return false, o.fail(ctx, what, err)
	}
	return n == 1, nil
}

// writeConsoleSession runs one statement that changes a session, whether
// or not the session is still there.
func (o *Ops) writeConsoleSession(ctx context.Context, what, query string, args ...any) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	if _, err := o.b.Write.Exec(ctx, query, args...); err != nil {
		return o.fail(ctx, what, err)
	}
	return nil
}
