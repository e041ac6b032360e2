package console

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// eventView is the event page's data.
type eventView struct {
	Event adminwire.EventDetail
	// Body is the body as text: indented when it is JSON, as it is when it
	// is other UTF-8 text, empty when it is neither.
	Body     string
	BodyKind string
	Headers  []headerLine
	// Verification is the result of a re-verify just asked for.
	Verification *adminwire.Verification
	RawURL       string
}

// headerLine is one stored header, values joined.
type headerLine struct {
	Name, Value string
}

// event answers GET /events/{id}.
func (c *Console) event(w http.ResponseWriter, r *http.Request, s *session) {
	c.showEvent(w, r, s, nil)
}

func (c *Console) showEvent(w http.ResponseWriter, r *http.Request, s *session, verification *adminwire.Verification) {
	id := r.PathValue("id")
	detail, err := c.svc.Event(r.Context(), id)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	v := eventView{Event: detail, Verification: verification, RawURL: "/events/" + detail.ID + "/raw"}
	if detail.Purged != nil {
		v.BodyKind = "purged: the body and headers are gone"
	} else {
		stored, err := c.svc.StoredEvent(r.Context(), id)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		v.Body, v.BodyKind = bodyText(stored.Body)
	}
	for name, values := range detail.Headers {
		v.Headers = append(v.Headers, headerLine{Name: name, Value: strings.Join(values, ", ")})
	}
	slices.SortFunc(v.Headers, func(a, b headerLine) int { return strings.Compare(a.Name, b.Name) })
	title := detail.Type
	if title == "" {
		title = detail.ProviderEventID
	}
	c.render(w, r, s, "event", "Event "+title, "events", v)
}

// bodyText returns a body as the page shows it, and what kind it is.
func bodyText(body []byte) (string, string) {
	if len(body) == 0 {
		return "", "empty"
	}
	if json.Valid(body) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err == nil {
			return buf.String(), "JSON, pretty-printed (the stored bytes are unchanged)"
		}
	}
	if utf8.Valid(body) {
		return string(body), "text, as stored"
	}
	return "", "binary: download the exact bytes to read them"
}

// rawEvent answers GET /events/{id}/raw: the stored bytes as a download,
// never rendered by the browser; a purged event's are gone (410).
func (c *Console) rawEvent(w http.ResponseWriter, r *http.Request, s *session) {
	ev, err := c.svc.StoredPayload(r.Context(), r.PathValue("id"))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.Itoa(len(ev.Body)))
	h.Set("Content-Disposition", `attachment; filename="`+downloadName(ev.ID)+`"`)
	h.Set("Content-Security-Policy", "sandbox")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(ev.Body)
}

// downloadName is the file name a raw body downloads as; the id is
// hookrelay's own, but only its safe characters are kept all the same.
func downloadName(id string) string {
	clean := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, id)
	return "event-" + clean + ".body"
}

// verifyEvent answers POST /events/{id}/verify: the event page with the
// result of re-checking its signature now. It changes nothing, so a read
// session may ask for it.
func (c *Console) verifyEvent(w http.ResponseWriter, r *http.Request, s *session) {
	res, err := c.svc.Verify(r.Context(), r.PathValue("id"))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.showEvent(w, r, s, &res)
}
