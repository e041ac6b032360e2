package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/postgres/postgrestest"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// BenchmarkClaimHistory runs BenchClaim on a destination whose history
// holds 10 000, then 1 000 000, finished deliveries: the claim's median
// should not grow with them.
func BenchmarkClaimHistory(b *testing.B) {
	for _, done := range []int64{10_000, 1_000_000} {
		b.Run(fmt.Sprintf("done=%d", done), func(b *testing.B) {
			url := testdb.PostgresURL(b)
			s := openTestURL(b, url)
			if err := postgrestest.SeedHistory(context.Background(), url, storetest.ClaimDestination, done); err != nil {
				b.Fatal(err)
			}
			storetest.BenchClaim(b, s)
		})
	}
}

// seedStatement is one statement of a benchmark's seed, and its
// arguments.
type seedStatement struct {
	sql  string
	args []any
}

// seed runs statements in order on a connection of its own to url; what
// names the seed in a failure.
func seed(b *testing.B, url, what string, statements []seedStatement) {
	b.Helper()
	seeds := make([]postgrestest.Statement, len(statements))
	for i, st := range statements {
		seeds[i] = postgrestest.Statement{SQL: st.sql, Args: st.args}
	}
	if err := postgrestest.Seed(context.Background(), url, seeds); err != nil {
		b.Fatalf("%s: %v", what, err)
	}
}
