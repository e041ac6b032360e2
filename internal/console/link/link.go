// Package link builds the addresses of web console pages from the
// console's base URL, for what points operators at the console from
// outside it: alerts. The console's suite opens every address built here,
// so that the routes and the links stay in step.
package link

import "net/url"

// Event returns the address of the console page of event id (hookrelay's
// own id), scrolled to its delivery to destination when destination is not
// empty. It returns "" when base is empty or not a URL.
func Event(base, id, destination string) string {
	u := page(base, "events", url.PathEscape(id))
	if u == nil {
		return ""
	}
	if destination != "" {
		u.Fragment = "delivery-" + destination
	}
	return u.String()
}

// Rejections returns the address of the console's rejection record, showing
// source's rejections only. It returns "" when base is empty or not a URL.
func Rejections(base, source string) string {
	u := page(base, "rejections")
	if u == nil {
		return ""
	}
	u.RawQuery = url.Values{"source": {source}}.Encode()
	return u.String()
}

// page returns the address of the page whose escaped path elements are
// elems, below base's path, or nil.
func page(base string, elems ...string) *url.URL {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return nil
	}
	u = u.JoinPath(elems...)
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return u
}
