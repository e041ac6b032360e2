package hookrelay

import (
	"net/http"

	"github.com/hookrelay/hookrelay/internal/receiver"
)

// SourceFunc names the source a webhook request is for, for the receiver
// ReceiverFor returns: SourceFromPath reads it from the request's path,
// FixedSource gives one name for every request, and an application may
// write its own (from the host name, say). A name no source has is
// answered 404 {"error":"unknown_source"}, as Receiver answers a
// /webhooks/{source} of an unknown source.
type SourceFunc func(*http.Request) string

// SourceFromPath returns the SourceFunc that reads the source from the
// path value called name, which the pattern the receiver is mounted on
// must bind:
//
//	mux.Handle("POST /hooks/{provider}", relay.ReceiverFor(hookrelay.SourceFromPath("provider")))
//
// It panics when name is empty.
func SourceFromPath(name string) SourceFunc {
	if name == "" {
		panic("hookrelay: SourceFromPath with an empty path value name")
	}
	return func(r *http.Request) string { return r.PathValue(name) }
}

// FixedSource returns the SourceFunc that says every request is for the
// source called name, for a path that serves one provider alone:
//
//	mux.Handle("POST /stripe", relay.ReceiverFor(hookrelay.FixedSource("stripe")))
//
// It panics when name is empty.
func FixedSource(name string) SourceFunc {
	if name == "" {
		panic("hookrelay: FixedSource with an empty source name")
	}
	return func(*http.Request) string { return name }
}

// ReceiverFor returns the ingest handler, as Receiver does — every rule of
// the ingest contract, and 503 with Retry-After before Start and after
// Close — for the application to mount at any path of its mux: source
// names each request's source instead of a /webhooks/{source} path. Mount
// it for POST; a source whose provider checks its endpoint with a GET
// (Meta's subscription) needs the GET too. It panics when source is nil.
func (r *Relay) ReceiverFor(source SourceFunc) http.Handler {
	if source == nil {
		panic("hookrelay: ReceiverFor with a nil SourceFunc")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.serve(w, receiver.WithSource(req, source(req)), func() http.Handler {
			if r.inner == nil {
				return nil
			}
			return r.inner.Receiver()
		})
	})
}
