package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// TestAuditRows checks the audit rows of a replay, its dry run, and a
// backfill.
func TestAuditRows(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	storetest.CheckAuditRows(t, s, func(query string) (storetest.Rows, error) {
		return s.reader.Query(s.rewriter.SQL(query))
	})
}
