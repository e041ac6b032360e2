package signature

import (
	"fmt"
	"strings"
)

// content is what a signed-content template may refer to.
type content struct {
	id        string
	timestamp string // as it appears in the request, byte for byte
	body      []byte
}

// part is one piece of a template: literal text or a placeholder.
type part struct {
	kind partKind
	text string // the literal, for partLiteral
}

type partKind uint8

const (
	partLiteral partKind = iota
	partBody
	partTimestamp
	partID
)

var placeholders = map[string]partKind{
	"{body}":      partBody,
	"{timestamp}": partTimestamp,
	"{id}":        partID,
}

// template describes the bytes a scheme signs, e.g. "{timestamp}.{body}".
type template []part

// Templates of the built-in schemes.
var (
	bodyOnly       = mustTemplate("{body}")
	timestampDot   = mustTemplate("{timestamp}.{body}")
	idTimestampDot = mustTemplate("{id}.{timestamp}.{body}")
	slackV0        = mustTemplate("v0:{timestamp}:{body}")
)

// parseTemplate reads a template with the placeholders {body},
// {timestamp} and {id}. The body must appear exactly once; any other brace
// is an error.
func parseTemplate(s string) (template, error) {
	orig := s
	var t template
	bodies := 0
	for s != "" {
		i := strings.IndexAny(s, "{}")
		if i < 0 {
			t = append(t, part{kind: partLiteral, text: s})
			break
		}
		if i > 0 {
			t = append(t, part{kind: partLiteral, text: s[:i]})
			s = s[i:]
		}
		end := strings.IndexByte(s, '}')
		kind, ok := placeholders[s[:end+1]]
		if s[0] != '{' || !ok {
			return nil, fmt.Errorf("signed content %q: bad placeholder at %q (want {body}, {timestamp} or {id})", orig, s)
		}
		if kind == partBody {
			bodies++
		}
		t = append(t, part{kind: kind})
		s = s[end+1:]
	}
	if bodies != 1 {
		return nil, fmt.Errorf("signed content %q: want {body} exactly once", orig)
	}
	return t, nil
}

func mustTemplate(s string) template {
	t, err := parseTemplate(s)
	if err != nil {
		panic(err)
	}
	return t
}

// uses reports whether the template contains the placeholder kind.
func (t template) uses(kind partKind) bool {
	for _, p := range t {
		if p.kind == kind {
			return true
		}
	}
	return false
}

// write feeds the signed content into st's hash. Text around the body is
// gathered in st's scratch buffer so that nothing is allocated.
func (t template) write(st *macState, c *content) {
	buf := st.scratch[:0]
	for _, p := range t {
		switch p.kind {
		case partLiteral:
			buf = append(buf, p.text...)
		case partTimestamp:
			buf = append(buf, c.timestamp...)
		case partID:
			buf = append(buf, c.id...)
		case partBody:
			if len(buf) > 0 {
				st.h.Write(buf)
				buf = buf[:0]
			}
			st.h.Write(c.body)
		}
	}
	if len(buf) > 0 {
		st.h.Write(buf)
	}
	st.scratch = buf[:0]
}
