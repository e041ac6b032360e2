package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

func TestSettledLeasesDeleted(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	storetest.CheckSettledLeasesDeleted(t, s, func() int {
		var n int
		if err := s.reader.QueryRowContext(context.Background(), s.rewriter.SQL(`SELECT count(*) FROM hookrelay.delivery_leases`)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	})
}
