package postgres

import (
	"context"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestSettledLeasesDeleted(t *testing.T) {
	t.Parallel()
	s := openURL(t, testdb.PostgresURL(t))
	storetest.CheckSettledLeasesDeleted(t, s, func() int {
		var n int
		if err := s.other.QueryRow(context.Background(), s.sql.SQL(`SELECT count(*) FROM hookrelay.delivery_leases`)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	})
}
