package receiver

import "net/http"

// Patterns are the ServeMux patterns a Receiver serves: POST for every
// source, and GET for the providers that check an endpoint with one
// (Meta's subscription); a GET to any other source is answered 405.
var Patterns = []string{"POST /webhooks/{source}", "GET /webhooks/{source}"}

// allowsMethod reports whether the request's method is one the source
// ingests: POST, or GET when its scheme answers a GET handshake. A nil
// source (unknown) allows only POST, so that a GET never probes which
// sources exist.
func allowsMethod(r *http.Request, src *Source) bool {
	switch r.Method {
	case http.MethodPost:
		return true
	case http.MethodGet:
		return src != nil && src.Scheme.AcceptsGET()
	}
	return false
}

// refuseMethod answers 405 the way ServeMux does for a method no pattern
// serves, with the methods the source allows.
func refuseMethod(w http.ResponseWriter, src *Source) {
	allow := "POST"
	if src != nil && src.Scheme.AcceptsGET() {
		allow = "GET, POST"
	}
	w.Header().Set("Allow", allow)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusMethodNotAllowed)
	_, _ = w.Write([]byte(`{"error":"method_not_allowed"}`))
}
