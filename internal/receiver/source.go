package receiver

import (
	"context"
	"net/http"
)

// sourceKey keys the source name WithSource sets in a request's context.
type sourceKey struct{}

// WithSource returns r for the source named name: a Receiver serving it
// ingests for that source whatever r's path says. An application that
// mounts the receiver at a path of its own, where no {source} wildcard
// names the source, says which it is this way.
func WithSource(r *http.Request, name string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), sourceKey{}, name))
}

// sourceOf returns the name of the source r is for: the one WithSource
// set, or else the {source} of r's path.
func sourceOf(r *http.Request) string {
	if name, ok := r.Context().Value(sourceKey{}).(string); ok {
		return name
	}
	return r.PathValue("source")
}
