package console

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// sessionCookie names the cookie that carries a session's id. The token a
// session was opened with never leaves the server.
const sessionCookie = "hookrelay_session"

// maxSessionsPerToken bounds the sessions one token keeps: its next log
// in ends its own oldest session, never another token's. With the tokens
// of the config few, this bounds the sessions of all.
const maxSessionsPerToken = 64

// seenEvery is how old a session's last-seen time grows before a request
// records it again: a session in use costs a write at most this often,
// not one a page.
const seenEvery = time.Minute

// session is one logged-in browser, as one request read it.
type session struct {
	key     []byte        // the SHA-256 of the cookie value: its row's key
	token   *config.Token // the token of this relay's config it was opened with
	csrf    string        // the token every POST of this session carries
	expires time.Time     // fixed at log in
	flash   string        // the message its row held when read; see takeFlash
}

// admin reports whether the session may run mutating actions.
func (s *session) admin() bool { return s.token.Role == config.RoleAdmin }

// sessions keeps the console's sessions in the database, so that every
// relay on it knows them. Each request reads its session's row, by the
// SHA-256 of the cookie value: nothing is cached, so a log out through
// any relay ends the session on every relay at once. A session opens only
// while this relay's config still holds its token with the same role and
// secret: a reload that removes or changes a token ends that token's
// sessions on this relay and leaves every other session as it was.
type sessions struct {
	store  store.ConsoleSessions
	tokens []config.Token // this relay's config's
	ttl    time.Duration
	now    func() time.Time
	logger *slog.Logger
}

// open starts a session for tok and returns its cookie value.
func (ss *sessions) open(ctx context.Context, tok *config.Token) (string, *session, error) {
	id := randomToken()
	now := ss.now()
	s := ss.session(id, tok, now.Add(ss.ttl), "")
	err := ss.store.OpenConsoleSession(ctx, store.ConsoleSession{
		Key: s.key, Token: tok.Name, Role: tok.Role, Binding: binding(id, tok),
		CreatedAt: now, ExpiresAt: s.expires,
	}, maxSessionsPerToken)
	if err != nil {
		return "", nil, err
	}
	return id, s, nil
}

// get returns the live session whose cookie value is id, or nil when it
// has none: never opened, ended, expired, or opened with a token this
// relay's config no longer holds as it was. It fails only when the
// database cannot be read.
func (ss *sessions) get(ctx context.Context, id string) (*session, error) {
	now := ss.now()
	key := sessionKey(id)
	row, err := ss.store.ConsoleSession(ctx, key[:], now)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	tok := ss.token(row.Token)
	if tok == nil || tok.Role != row.Role || !hmac.Equal(binding(id, tok), row.Binding) {
		return nil, nil
	}
	if now.Sub(row.SeenAt) >= seenEvery {
		if err := ss.store.TouchConsoleSession(ctx, key[:], now); err != nil {
			ss.logger.Warn("record console session seen", keyToken, tok.Name, keyError, err)
		}
	}
	return ss.session(id, tok, row.ExpiresAt, row.Flash), nil
}

// token returns the token of this relay's config named name, or nil.
func (ss *sessions) token(name string) *config.Token {
	for i := range ss.tokens {
		if t := &ss.tokens[i]; t.Name == name && t.Secret != "" {
			return t
		}
	}
	return nil
}

// end ends the session whose cookie value is id, on every relay.
func (ss *sessions) end(ctx context.Context, id string) error {
	key := sessionKey(id)
	return ss.store.EndConsoleSession(ctx, key[:])
}

// setFlash keeps msg to show once on the session's next page, whichever
// relay serves it. A message that could not be kept is logged: the
// action it reports was done.
func (ss *sessions) setFlash(ctx context.Context, s *session, msg string) {
	if err := ss.store.SetConsoleFlash(ctx, s.key, msg); err != nil {
		ss.logger.Warn("keep console flash", keyToken, s.token.Name, keyError, err)
	}
}

// takeFlash returns the session's flash message and clears it, or ""
// when another page took it first.
func (ss *sessions) takeFlash(ctx context.Context, s *session) string {
	if s.flash == "" {
		return ""
	}
	took, err := ss.store.TakeConsoleFlash(ctx, s.key, s.flash)
	if err != nil {
		// Shown now, and perhaps once more: better than never.
		ss.logger.Warn("clear console flash", keyToken, s.token.Name, keyError, err)
		return s.flash
	}
	if !took {
		return ""
	}
	return s.flash
}

// session returns the session of cookie value id for tok.
func (ss *sessions) session(id string, tok *config.Token, expires time.Time, flash string) *session {
	key := sessionKey(id)
	return &session{key: key[:], token: tok, csrf: derive(id, "csrf"), expires: expires, flash: flash}
}

// sessionKey is the key of the session whose cookie value is id: what the
// database holds instead of the cookie.
func sessionKey(id string) [sha256.Size]byte { return sha256.Sum256([]byte(id)) }

// binding ties a session to the secret of the token it was opened with:
// a change of the secret ends the session. Keyed by the cookie value, it
// tells nothing of the secret to whoever reads the database.
func binding(id string, tok *config.Token) []byte {
	m := hmac.New(sha256.New, []byte(id))
	m.Write([]byte("token secret\x00" + tok.Secret))
	return m.Sum(nil)
}

// derive returns a value of the session whose cookie value is id, for
// purpose: the same on every relay, and telling nothing of id.
func derive(id, purpose string) string {
	m := hmac.New(sha256.New, []byte(id))
	m.Write([]byte(purpose))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// session returns the request's live session, or nil when it has none.
// It fails only when the database cannot be read.
func (c *Console) session(r *http.Request) (*session, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil, nil
	}
	return c.sessions.get(r.Context(), ck.Value)
}

// setSessionCookie sends the session's cookie: HttpOnly, SameSite=Strict,
// Secure when the console is served over TLS, and expiring with the
// session. An empty value with a past expiry removes it.
func setSessionCookie(w http.ResponseWriter, r *http.Request, value string, expires time.Time) {
	maxAge := int(time.Until(expires).Seconds())
	if value == "" {
		maxAge = -1
	}
	http.SetCookie(w, &http.Cookie{
		Name:     sessionCookie,
		Value:    value,
		Path:     "/",
		Expires:  expires,
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
}

// randomToken returns 32 random bytes in URL-safe base64.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}
