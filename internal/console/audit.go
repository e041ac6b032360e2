package console

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/when"
)

// auditShown is how many of the newest audit rows the page lists.
const auditShown = 200

// auditRow is one row of the audit page: the entry, its detail as
// key=value text and its counts in words.
type auditRow struct {
	adminwire.AuditEntry
	What   string
	Counts string
}

// auditView is the audit page's data.
type auditView struct {
	Since string
	Rows  []auditRow
}

// audit answers GET /audit: who replayed, backfilled, purged, paused,
// resumed or skipped what, newest first, from ?since= on (a time as the
// filters take it).
func (c *Console) audit(w http.ResponseWriter, r *http.Request, s *session) {
	since := strings.TrimSpace(r.URL.Query().Get("since"))
	from, err := when.Parse(since, c.now())
	if err != nil {
		c.renderError(w, r, s, http.StatusBadRequest, fmt.Sprintf("since: want %s, got %q", when.Help, since))
		return
	}
	log, err := c.svc.AuditLog(r.Context(), from, auditShown)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	v := auditView{Since: since, Rows: make([]auditRow, len(log.Entries))}
	for i, e := range log.Entries {
		v.Rows[i] = auditRow{AuditEntry: e, What: auditDetail(e.Detail), Counts: auditCounts(e)}
	}
	c.render(w, r, s, "audit", "Audit log", "audit", v)
}

// auditDetail writes what an action selected as key=value pairs in key
// order.
func auditDetail(d map[string]any) string {
	parts := make([]string, 0, len(d))
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range d {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, d[k]))
	}
	return strings.Join(parts, " ")
}

// auditCounts says what an action did, in the words of its kind.
func auditCounts(e adminwire.AuditEntry) string {
	var s string
	switch e.Kind {
	case "replay":
		s = fmt.Sprintf("%d matched, %d re-armed, %d in flight", e.Matched, e.Rearmed, e.InFlight)
	case "backfill":
		s = fmt.Sprintf("%d matched, %d created", e.Matched, e.Created)
	case "purge":
		s = fmt.Sprintf("%d matched, %d purged", e.Matched, e.Purged)
	}
	if e.DryRun {
		s += " (dry run)"
	}
	return strings.TrimSpace(s)
}
