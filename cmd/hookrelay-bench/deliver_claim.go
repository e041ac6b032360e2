package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/postgres/postgrestest"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

// claimWarmup is how many claims are made, and not timed, at each
// history size before the timed ones.
const claimWarmup = 20

// runClaimCheck measures the PostgreSQL claim (the store benchmark's
// Claimer) with f.historyBase done deliveries of the claimed destination
// behind it and with f.history, on two databases whose done rows are
// written by the store benchmark's seed, not through ingest. The two are
// claimed from in turn, so that whatever else loads the machine weighs on
// both alike.
func runClaimCheck(ctx context.Context, stderr io.Writer, f deliverFlags) ([]claimRow, error) {
	var (
		benches []*claimBench
		rows    []claimRow
	)
	defer func() {
		for _, b := range benches {
			b.close(context.WithoutCancel(ctx), stderr)
		}
	}()
	for _, n := range []int64{f.history, f.historyBase} {
		fmt.Fprintf(stderr, "claim check: seeding %d done deliveries\n", n)
		b, err := newClaimBench(ctx, f.postgresURL)
		if err != nil {
			return nil, err
		}
		benches = append(benches, b)
		start := time.Now()
		if err := postgrestest.SeedHistory(ctx, b.db.URL(), storetest.ClaimDestination, n); err != nil {
			return nil, err
		}
		rows = append(rows, claimRow{History: n, Seed: time.Since(start)})
	}
	fmt.Fprintf(stderr, "claim check: %d claims on each, in turn\n", f.claims)
	load := loadAverage()
	for _, b := range benches {
		if err := b.claimer.Refill(ctx); err != nil {
			return nil, err
		}
	}
	for i := range claimWarmup + f.claims {
		for j := range benches {
			// Alternate which goes first, so neither always follows the
			// other's completions.
			b := benches[(i+j)%len(benches)]
			if err := b.claimOnce(ctx, i >= claimWarmup); err != nil {
				return nil, err
			}
		}
	}
	// Report the smaller history first.
	slices.Reverse(rows)
	slices.Reverse(benches)
	for i, b := range benches {
		rows[i].Claims = loadgen.Summarize(b.took)
		rows[i].Load = load + " → " + loadAverage()
	}
	return rows, nil
}

// claimBench is one scratch schema claimed from by the claim check.
type claimBench struct {
	db      *benchDB
	st      store.DB
	claimer *storetest.Claimer
	took    []time.Duration // timed claims
}

func newClaimBench(ctx context.Context, serverURL string) (*claimBench, error) {
	db, err := newBenchDB(ctx, "postgres", "", "", serverURL)
	if err != nil {
		return nil, err
	}
	b := &claimBench{db: db}
	if b.st, err = storeopen.Open(ctx, db.URL(), slog.New(slog.DiscardHandler)); err != nil {
		return b, err
	}
	if err := b.st.Migrate(ctx); err != nil {
		return b, fmt.Errorf("migrate: %w", err)
	}
	b.claimer = storetest.NewClaimer(b.st)
	return b, nil
}

func (b *claimBench) close(ctx context.Context, stderr io.Writer) {
	if b.st != nil {
		_ = b.st.Close()
	}
	if err := b.db.Drop(ctx); err != nil {
		fmt.Fprintln(stderr, err)
	}
}

// claimOnce claims once, timing the claim when timed; it refills the
// backlog, off the clock, when the claim comes back short.
func (b *claimBench) claimOnce(ctx context.Context, timed bool) error {
	took, n, err := b.claimer.Claim(ctx)
	if err != nil {
		return err
	}
	if timed {
		b.took = append(b.took, took)
	}
	if n < storetest.ClaimBatch {
		return b.claimer.Refill(ctx)
	}
	return nil
}
