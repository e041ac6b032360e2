package console

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
)

// loginCookie carries the login form's CSRF token until the form is sent:
// before a session there is nothing server-side to keep it in.
const loginCookie = "hookrelay_login"

// loginView is the login page's data.
type loginView struct {
	CSRF    string
	Message string
	// TokenFile is the file of the admin token the relay generated, or "".
	TokenFile string
}

// home answers GET /: the overview in a session, the login page outside.
func (c *Console) home(w http.ResponseWriter, r *http.Request) {
	s, err := c.session(r)
	switch {
	case err != nil:
		c.fail(w, r, nil, err)
	case s != nil:
		c.overview(w, r, s)
	default:
		c.loginPage(w, r, http.StatusOK, "")
	}
}

func (c *Console) loginPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	csrf := randomToken()
	http.SetCookie(w, &http.Cookie{
		Name: loginCookie, Value: csrf, Path: "/login", MaxAge: 3600,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	})
	c.renderStatus(w, r, nil, status, "login", "Log in", "", loginView{CSRF: csrf, Message: msg, TokenFile: c.cfg.AdminTokenFile})
}

// login answers POST /login: a read or admin token opens a session; a
// consumer or unknown token is refused on the page.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	if crossSite(r) {
		c.loginPage(w, r, http.StatusForbidden, "The form was refused: it did not come from this console's own page.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		c.loginPage(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	ck, err := r.Cookie(loginCookie)
	if err != nil || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostForm.Get(csrfField))) != 1 {
		c.loginPage(w, r, http.StatusForbidden, "The form has expired. Enter the token again.")
		return
	}
	tok, ok := c.svc.Authenticate(strings.TrimSpace(r.PostForm.Get("token")))
	switch {
	case !ok:
		c.logger.Warn("console log in refused", keyError, "unknown token")
		c.loginPage(w, r, http.StatusUnauthorized, "That token is not one of the relay's tokens.")
		return
	case tok.Role != config.RoleRead && tok.Role != config.RoleAdmin:
		c.logger.Warn("console log in refused", keyToken, tok.Name, keyRole, tok.Role)
		c.loginPage(w, r, http.StatusForbidden, "A "+tok.Role+" token cannot open the console: it only claims deliveries. Use a read or admin token.")
		return
	}
	id, s, err := c.sessions.open(r.Context(), tok)
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	c.logger.Info("console session opened", keyToken, tok.Name, keyRole, tok.Role)
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Path: "/login", MaxAge: -1, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	setSessionCookie(w, r, id, s.expires)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout answers /logout: it ends the session, if any, on every relay,
// and removes its cookie. Ending a session changes no data, so a GET may
// do it too. When the database cannot be written the session goes on,
// so the cookie stays and the page says so: log out again.
func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(sessionCookie); err == nil && ck.Value != "" {
		s, _ := c.sessions.get(r.Context(), ck.Value) // only to name its token
		if err := c.sessions.end(r.Context(), ck.Value); err != nil {
			c.fail(w, r, nil, err)
			return
		}
		if s != nil {
			c.logger.Info("console session ended", keyToken, s.token.Name)
		}
	}
	setSessionCookie(w, r, "", time.Unix(0, 0))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
