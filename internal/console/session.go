package console

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
)

// sessionCookie names the cookie that carries a session's id. The token a
// session was opened with never leaves the server.
const sessionCookie = "hookrelay_session"

// maxSessions bounds the sessions kept at once; past it, opening one
// first drops those that have expired, then the one closest to expiring.
const maxSessions = 10000

// session is one logged-in browser.
type session struct {
	token   *config.Token
	csrf    string    // the token every POST of this session carries
	expires time.Time // fixed at log in
	flash   string    // a result to show once on the next page; guarded by sessions.mu
}

// admin reports whether the session may run mutating actions.
func (s *session) admin() bool { return s.token.Role == config.RoleAdmin }

// sessions holds the live sessions by the SHA-256 of their cookie value,
// so that looking one up tells nothing by its timing.
type sessions struct {
	ttl time.Duration
	now func() time.Time

	mu   sync.Mutex
	byID map[[sha256.Size]byte]*session // guarded by mu
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{ttl: ttl, now: now, byID: map[[sha256.Size]byte]*session{}}
}

// open starts a session for tok and returns its cookie value.
func (ss *sessions) open(tok *config.Token) (string, *session) {
	id := randomToken()
	s := &session{token: tok, csrf: randomToken(), expires: ss.now().Add(ss.ttl)}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.byID) >= maxSessions {
		ss.dropExpiredLocked()
	}
	if len(ss.byID) >= maxSessions {
		var oldest [sha256.Size]byte
		var at time.Time
		for k, v := range ss.byID {
			if at.IsZero() || v.expires.Before(at) {
				oldest, at = k, v.expires
			}
		}
		delete(ss.byID, oldest)
	}
	ss.byID[sha256.Sum256([]byte(id))] = s
	return id, s
}

func (ss *sessions) dropExpiredLocked() {
	now := ss.now()
	for k, v := range ss.byID {
		if !now.Before(v.expires) {
			delete(ss.byID, k)
		}
	}
}

// get returns the live session whose cookie value is id.
func (ss *sessions) get(id string) (*session, bool) {
	key := sha256.Sum256([]byte(id))
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.byID[key]
	if !ok {
		return nil, false
	}
	if !ss.now().Before(s.expires) {
		delete(ss.byID, key)
		return nil, false
	}
	return s, true
}

// end forgets the session whose cookie value is id.
func (ss *sessions) end(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.byID, sha256.Sum256([]byte(id)))
}

// setFlash keeps msg to show once on the session's next page.
func (ss *sessions) setFlash(s *session, msg string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s.flash = msg
}

// takeFlash returns and forgets the session's flash message.
func (ss *sessions) takeFlash(s *session) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	msg := s.flash
	s.flash = ""
	return msg
}

// session returns the request's live session.
func (c *Console) session(r *http.Request) (*session, bool) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return nil, false
	}
	return c.sessions.get(ck.Value)
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
