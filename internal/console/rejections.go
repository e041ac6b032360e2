package console

import (
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/store"
)

// rejectionsShown is how many of the newest rejections the page lists.
const rejectionsShown = 200

// rejections answers GET /rejections: the newest of the bounded rejection
// record, never a body.
func (c *Console) rejections(w http.ResponseWriter, r *http.Request, s *session) {
	rs, err := c.store.Rejections(r.Context(), rejectionsShown)
	if err != nil {
		c.fail(w, r, s, fmt.Errorf("read rejections: %w", err))
		return
	}
	if rs == nil {
		rs = []store.Rejection{}
	}
	c.render(w, r, s, "rejections", "Rejections", "rejections", rs)
}
