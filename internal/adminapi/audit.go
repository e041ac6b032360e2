package adminapi

import (
	"context"
	"log/slog"
	"net/http"
)

// auditRecord collects what one mutating call did, for its audit line.
type auditRecord struct {
	attrs []any
	// quiet drops the line: a claim that found nothing changed nothing.
	quiet bool
}

type auditKey struct{}

// audit adds key-value pairs to the request's audit line.
func audit(ctx context.Context, attrs ...any) {
	if rec, ok := ctx.Value(auditKey{}).(*auditRecord); ok {
		rec.attrs = append(rec.attrs, attrs...)
	}
}

// auditQuiet drops the request's audit line.
func auditQuiet(ctx context.Context) {
	if rec, ok := ctx.Value(auditKey{}).(*auditRecord); ok {
		rec.quiet = true
	}
}

// statusRecorder remembers the status code a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// audited writes one audit line for every call of fn, refused ones
// included: who (the token's name, never its secret), what, the answer's
// status and what the handler added.
func (s *Service) audited(fn http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := &auditRecord{}
		sw := &statusRecorder{ResponseWriter: w}
		fn(sw, r.WithContext(context.WithValue(r.Context(), auditKey{}, rec)))
		if rec.quiet && sw.status < 300 {
			return
		}
		t := tokenFrom(r.Context())
		attrs := append([]any{keyToken, t.Name, keyRole, t.Role, keyMethod, r.Method, keyPath, r.URL.Path, keyStatus, sw.status}, rec.attrs...)
		s.logger.Log(r.Context(), slog.LevelInfo, "audit", attrs...)
	}
}

// AuditCall runs fn, a mutating call of the Go operations API made for
// actor (package hookrelay's Relay methods), and writes its audit line as
// a mutating route does: who, what (op, and the key-value pairs attrs),
// whether it failed, and what the Service methods fn called added. It
// returns fn's error.
func (s *Service) AuditCall(ctx context.Context, actor, op string, fn func(ctx context.Context) error, attrs ...any) error {
	rec := &auditRecord{attrs: attrs}
	err := fn(context.WithValue(ctx, auditKey{}, rec))
	attrs = append([]any{keyToken, actor, "op", op}, rec.attrs...)
	if err != nil {
		attrs = append(attrs, keyError, err)
	}
	s.logger.Log(ctx, slog.LevelInfo, "audit", attrs...)
	return err
}

// Audited wraps a mutating handler so that every call, refused ones
// included, writes an audit line naming the token that WithToken put in
// the request's context, with what the Service methods it called added.
func (s *Service) Audited(fn http.HandlerFunc) http.HandlerFunc { return s.audited(fn) }
