package console

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/hookrelay/hookrelay/internal/adminapi"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pages holds one template set per page, each the layout with the page's
// own "content" block.
type pages map[string]*template.Template

// mustParsePages parses the embedded templates; they are part of the
// binary, so an error is a bug caught by any test.
func mustParsePages() pages {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := pages{}
	for _, name := range names {
		base := path.Base(name)
		if base == "layout.html" || strings.HasPrefix(base, "_") {
			continue
		}
		files := []string{"templates/layout.html", name}
		partials, _ := fs.Glob(templateFS, "templates/_*.html")
		files = append(files, partials...)
		t := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, files...))
		out[strings.TrimSuffix(base, ".html")] = t
	}
	return out
}

// view is what every page's template receives.
type view struct {
	Title   string
	Nav     string // the navigation entry to mark current
	Session *sessionView
	Flash   string
	Data    any
}

// sessionView is the part of a session a page shows or uses.
type sessionView struct {
	Name  string
	Role  string
	Admin bool
	CSRF  string
}

// render writes the page name with data, status 200.
func (c *Console) render(w http.ResponseWriter, r *http.Request, s *session, name, title, nav string, data any) {
	c.renderStatus(w, r, s, http.StatusOK, name, title, nav, data)
}

func (c *Console) renderStatus(w http.ResponseWriter, r *http.Request, s *session, status int, name, title, nav string, data any) {
	v := view{Title: title, Nav: nav, Data: data}
	if s != nil {
		v.Session = &sessionView{Name: s.token.Name, Role: s.token.Role, Admin: s.admin(), CSRF: s.csrf}
		v.Flash = c.sessions.takeFlash(r.Context(), s)
	}
	var buf bytes.Buffer
	if err := c.pages[name].Execute(&buf, v); err != nil {
		c.logger.Error("render page", "page", name, keyError, err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errForbidden refuses a mutating action to a read session.
var errForbidden = errors.New("forbidden: read session")

// fail answers err on an error page: the status and message the admin API
// would give, or 403 for a refused action or form.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, s *session, err error) {
	var status int
	var msg string
	switch {
	case errors.Is(err, errForbidden):
		status, msg = http.StatusForbidden, "This session is read-only: replay, backfill, pause and skip need an admin token."
	case errors.Is(err, errCrossSite), errors.Is(err, errBadCSRF):
		status, msg = http.StatusForbidden, "The form was refused: it did not come from this console's own page. Reload the page and try again."
	default:
		status, msg = adminapi.StatusOf(err)
	}
	switch {
	case status >= 500:
		c.logger.Error("console request failed", keyMethod, r.Method, keyPath, r.URL.Path, keyStatus, status, keyError, err)
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "5")
		}
	case status == http.StatusForbidden && s != nil:
		c.logger.Warn("console request refused", keyToken, s.token.Name, keyRole, s.token.Role, keyMethod, r.Method, keyPath, r.URL.Path, keyError, err)
	}
	c.renderError(w, r, s, status, msg)
}

// errorView is the error page's data.
type errorView struct {
	Status  int
	Text    string
	Message string
}

func (c *Console) renderError(w http.ResponseWriter, r *http.Request, s *session, status int, msg string) {
	c.renderStatus(w, r, s, status, "error", http.StatusText(status), "", errorView{Status: status, Text: http.StatusText(status), Message: msg})
}

// staticHandler serves the embedded stylesheet and script.
func staticHandler() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	files := http.FileServerFS(sub)
	return http.StripPrefix("/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		files.ServeHTTP(w, r)
	}))
}
