package console

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
)

// csrfField names the form field every POST carries its CSRF token in.
const csrfField = "csrf"

// maxForm bounds a console form's body.
const maxForm = 64 << 10

var (
	errCrossSite = errors.New("cross-site request refused")
	errBadCSRF   = errors.New("the form's CSRF token does not match the session")
)

// checkPost refuses a POST that a browser says came from another site, or
// whose CSRF token is not want. It parses the form.
func checkPost(r *http.Request, want string) error {
	if crossSite(r) {
		return errCrossSite
	}
	r.Body = http.MaxBytesReader(nil, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return errBadCSRF
	}
	got := r.PostForm.Get(csrfField)
	if want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errBadCSRF
	}
	return nil
}

// crossSite reports whether the browser marked the request as sent from
// another origin: Sec-Fetch-Site, or an Origin whose host is not the
// request's.
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return origin == "null"
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host != r.Host
}
