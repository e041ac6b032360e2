package console

import (
	"container/list"
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

// maxSessions bounds the sessions kept at once, and maxSessionsPerToken
// those of one token. A token at its own bound makes room by dropping its
// own oldest session, so that one token's logins never end another
// token's; past the overall bound, which takes many tokens to reach, the
// oldest session of all goes.
const (
	maxSessions         = 10000
	maxSessionsPerToken = 64
)

// session is one logged-in browser.
type session struct {
	token   *config.Token
	csrf    string    // the token every POST of this session carries
	expires time.Time // fixed at log in
	flash   string    // a result to show once on the next page; guarded by sessions.mu

	key       [sha256.Size]byte // its key in sessions.byID
	all, mine *list.Element     // its places in sessions.order and in its token's list; guarded by sessions.mu
}

// admin reports whether the session may run mutating actions.
func (s *session) admin() bool { return s.token.Role == config.RoleAdmin }

// sessions holds the live sessions by the SHA-256 of their cookie value,
// so that looking one up tells nothing by its timing. Every session lives
// for the same ttl from its log in, so the order of opening is the order
// of expiry: the lists below keep it, and opening, dropping the expired
// and evicting cost O(1) each, whatever the number of sessions.
type sessions struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	byID    map[[sha256.Size]byte]*session // guarded by mu
	order   *list.List                     // of *session, oldest first; guarded by mu
	byToken map[string]*list.List          // token name -> its sessions, oldest first; guarded by mu
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{ttl: ttl, now: now, byID: map[[sha256.Size]byte]*session{}, order: list.New(), byToken: map[string]*list.List{}}
}

// open starts a session for tok and returns its cookie value.
func (ss *sessions) open(tok *config.Token) (string, *session) {
	id := randomToken()
	s := &session{token: tok, csrf: randomToken(), expires: ss.now().Add(ss.ttl), key: sha256.Sum256([]byte(id))}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.dropExpiredLocked()
	if mine := ss.byToken[tok.Name]; mine != nil && mine.Len() >= maxSessionsPerToken {
		ss.removeLocked(mine.Front().Value.(*session))
	}
	if len(ss.byID) >= maxSessions {
		ss.removeLocked(ss.order.Front().Value.(*session))
	}
	mine := ss.byToken[tok.Name]
	if mine == nil {
		mine = list.New()
		ss.byToken[tok.Name] = mine
	}
	s.all, s.mine = ss.order.PushBack(s), mine.PushBack(s)
	ss.byID[s.key] = s
	return id, s
}

// dropExpiredLocked removes the sessions that have expired, oldest first.
func (ss *sessions) dropExpiredLocked() {
	now := ss.now()
	for e := ss.order.Front(); e != nil && !now.Before(e.Value.(*session).expires); e = ss.order.Front() {
		ss.removeLocked(e.Value.(*session))
	}
}

// removeLocked forgets s.
func (ss *sessions) removeLocked(s *session) {
	delete(ss.byID, s.key)
	ss.order.Remove(s.all)
	if mine := ss.byToken[s.token.Name]; mine != nil {
		mine.Remove(s.mine)
		if mine.Len() == 0 {
			delete(ss.byToken, s.token.Name)
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
		ss.removeLocked(s)
		return nil, false
	}
	return s, true
}

// end forgets the session whose cookie value is id.
func (ss *sessions) end(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s, ok := ss.byID[sha256.Sum256([]byte(id))]; ok {
		ss.removeLocked(s)
	}
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
