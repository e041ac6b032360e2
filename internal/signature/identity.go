package signature

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/bodyfield"
	"github.com/hookrelay/hookrelay/internal/store"
)

// fields says where the configured event id and type are read: a header
// name or a body path each; empty means not configured.
type fields struct {
	idHeader, idField, typeHeader, typeField string
}

func newFields(o Options) (fields, error) {
	for _, p := range []struct{ key, path string }{{"id field", o.IDField}, {"type field", o.TypeField}} {
		if p.path == "" {
			continue
		}
		if err := bodyfield.Valid(p.path); err != nil {
			return fields{}, fmt.Errorf("%s: %w", p.key, err)
		}
	}
	return fields{
		idHeader:   canonical(o.IDHeader),
		idField:    o.IDField,
		typeHeader: canonical(o.TypeHeader),
		typeField:  o.TypeField,
	}, nil
}

// need names where a scheme requires its id or type to come from, for the
// error when it is absent; empty means not required.
type need struct{ id, typ string }

// complete fills what the scheme's own reading left empty: the id and type
// from the configured header or body field, then the id from the body
// hash unless the scheme requires an id of its own.
func (f fields) complete(req Request, id Identity, n need) (Identity, error) {
	if id.ID == "" {
		id.ID, id.Origin = headerOrField(req, f.idHeader, f.idField)
	}
	if id.Type == "" {
		id.Type, _ = headerOrField(req, f.typeHeader, f.typeField)
	}
	if id.ID == "" {
		if n.id != "" {
			return Identity{}, fmt.Errorf("read event id from %s: %w", n.id, ErrMissingIdentity)
		}
		id.ID, id.Origin = bodyHash(req.Body), store.IDFromHash
	}
	if id.Type == "" && n.typ != "" {
		return Identity{}, fmt.Errorf("read event type from %s: %w", n.typ, ErrMissingIdentity)
	}
	return id, nil
}

// headerOrField returns the non-empty value of the header, else of the
// body field, and where it was found; an empty name or path is skipped.
func headerOrField(req Request, header, field string) (string, store.IDOrigin) {
	if v, origin := headerID(req.Header.Get(header)); v != "" {
		return v, origin
	}
	return bodyID(req.Body, field)
}

// headerID returns an id read from a header, or nothing when it is absent.
func headerID(v string) (string, store.IDOrigin) {
	if v == "" {
		return "", ""
	}
	return v, store.IDFromHeader
}

// bodyID returns an id read from a body field, or nothing when it is
// absent.
func bodyID(body []byte, path string) (string, store.IDOrigin) {
	if v, ok := bodyfield.Lookup(body, path); ok && v != "" {
		return v, store.IDFromBody
	}
	return "", ""
}

// bodyString returns the body field at path, or "".
func bodyString(body []byte, path string) string {
	v, _ := bodyfield.Lookup(body, path)
	return v
}

// bodyUnix returns the body field at path read as unix seconds, or the
// zero time.
func bodyUnix(body []byte, path string) time.Time {
	t, _ := parseUnix(bodyString(body, path))
	return t
}

// parseRFC3339 reads an RFC 3339 time, or returns the zero time.
func parseRFC3339(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// bodyHash is the id of last resort: the hex SHA-256 of the raw body.
func bodyHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// setHeaders sets the configured id and type headers of a signed message.
func (f fields) setHeaders(h http.Header, msg Message) {
	setIf(h, f.idHeader, msg.ID)
	setIf(h, f.typeHeader, msg.Type)
}

// bodyUnixMilli returns the body field at path read as unix milliseconds,
// or the zero time.
func bodyUnixMilli(body []byte, path string) time.Time {
	s := bodyString(body, path)
	if len(s) < 4 {
		return time.Time{}
	}
	sec, ok := parseUnix(s[:len(s)-3])
	msec, ok2 := parseUnix(s[len(s)-3:])
	if !ok || !ok2 {
		return time.Time{}
	}
	return sec.Add(time.Duration(msec.Unix()) * time.Millisecond)
}
