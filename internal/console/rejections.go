package console

import (
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/store"
)

// rejectionsShown is how many of the newest rejections the page lists.
const rejectionsShown = 200

// rejectionsView is the rejections page's data: the rows, and the source
// they are filtered to ("" for every source).
type rejectionsView struct {
	Source     string
	Rejections []store.Rejection
}

// rejections answers GET /rejections?source=: the newest of the bounded
// rejection record, of one source when the query names it (the page a
// signature-failure alert links to), never a body.
func (c *Console) rejections(w http.ResponseWriter, r *http.Request, s *session) {
	v := rejectionsView{Source: r.URL.Query().Get("source"), Rejections: []store.Rejection{}}
	read := rejectionsShown
	if v.Source != "" {
		// The record is bounded: read it whole to find one source's newest.
		read = max(c.cfg.Ingest.RejectionsKeep, rejectionsShown)
	}
	rs, err := c.store.Rejections(r.Context(), read)
	if err != nil {
		c.fail(w, r, s, fmt.Errorf("read rejections: %w", err))
		return
	}
	for _, rj := range rs {
		if len(v.Rejections) == rejectionsShown {
			break
		}
		if v.Source == "" || rj.Source == v.Source {
			v.Rejections = append(v.Rejections, rj)
		}
	}
	c.render(w, r, s, "rejections", "Rejections", "rejections", v)
}
