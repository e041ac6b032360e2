package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// CompleteDelivery records c's attempt and sets the delivery's new status
// in one statement, provided the delivery is still processing under c's
// lease token; otherwise it returns an error wrapping store.ErrLeaseLost
// and records nothing. A failed delivery becomes due at c.NextAttemptAt
// (c.Now when zero); a done, skipped or dead one is finished at c.Now
// (the current time when zero). Attempts is left as the claim counted it.
// The attempt's snippet is cut to 1 KiB and its duration to whole
// milliseconds; a zero AttemptedAt is c.Now.
func (s *Store) CompleteDelivery(ctx context.Context, c store.Completion) error {
	return sqlstore.CompleteOne(ctx, c, s.CompleteDeliveries)
}

// CompleteDeliveries records the outcomes of cs, each as CompleteDelivery
// would, in one statement, and reports which were recorded: those still
// processing under their lease token, the first time the batch names
// them.
func (s *Store) CompleteDeliveries(ctx context.Context, cs []store.Completion) ([]bool, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("complete deliveries: %w", err)
	}
	defer release()
	recorded := make([]bool, len(cs))
	if len(cs) == 0 {
		return recorded, nil
	}
	rows, err := sqlstore.CompletionRows(cs, time.Now(), s.payloads)
	if err != nil {
		return nil, err
	}
	var a completionArrays
	for _, r := range rows {
		if !r.Repeat {
			a.add(r)
		}
	}

	statement, args := completeDeliveries, a.args
	switch {
	case len(a.ids) == len(a.deferred) && !slices.Contains(a.deferred, false) && s.leases.Unwritten(a.ids, time.Now()):
		statement = completeDeferred
		if a.allDone() {
			statement, args = completeDone, a.doneArgs
		}
	case s.partitioned.Load() && !slices.Contains(a.events, ""):
		statement = completeDeliveriesKeyed
	case !slices.Contains(a.deferred, true) && a.allDone():
		statement, args = completeDoneHeld, a.doneHeldArgs
	}
	a.settled = s.leases.Take()
	got, err := s.complete(ctx, statement, args())
	if isUniqueViolation(err) && statement == completeDone {
		// A sweep wrote one of the rows meanwhile (see completeDone).
		got, err = s.complete(ctx, completeDeliveries, a.args())
	}
	if err != nil {
		s.leases.Untake(a.settled)
		return nil, fmt.Errorf("complete %d deliveries: %w", len(cs), s.mapErr(ctx, err))
	}
	s.leases.Settle(sqlstore.DeferredIDs(rows))
	done := make(map[int64]bool, len(got))
	for _, id := range got {
		done[id] = true
	}
	for i, r := range rows {
		recorded[i] = !r.Repeat && done[r.DeliveryID]
	}
	return recorded, nil
}

// complete runs an outcome statement. Outcomes commit without waiting
// for the WAL flush: losing one in a server crash only hands the delivery
// out again when its lease runs out, which at-least-once delivery allows,
// while waiting for the flush made outcomes the limit of a drain. Their
// plans keep to the indexes (indexScans) and are planned once
// (genericPlans): planning them anew for each batch cost the server about
// 20 µs a delivery in batches of 8 (BenchmarkLeased with a scratch batch
// size), 1–2 in batches of 48.
func (s *Store) complete(ctx context.Context, statement string, args []any) ([]int64, error) {
	return idsAfterSettings(ctx, s.other, []string{asyncCommit, indexScans, genericPlans}, s.sql.SQL(statement), args...)
}

// completionArrays are the parallel arrays completeDeliveries takes.
type completionArrays struct {
	ids                      []int64
	tokens, statuses, errors []string
	codes                    []int32
	nexts, finished          []*time.Time
	nows, attemptedAt        []time.Time
	durations                []int64
	snippets, headers        [][]byte
	keyIDs                   []*string
	kinds                    []string
	events                   []string // "" where the caller did not say
	destinations             []string // "" unless deferred
	deferred                 []bool
	settled                  []int64 // rows of delivery_leases to delete (sqlstore.LeaseBook)
}

// args returns the arrays as completeDeliveries takes them.
func (a *completionArrays) args() []any {
	return []any{a.ids, a.tokens, a.statuses, a.nexts, a.errors, a.codes, a.finished, a.nows,
		a.attemptedAt, a.durations, a.snippets, a.keyIDs, a.headers, a.kinds, a.events, a.destinations, a.deferred,
		sqlstore.NonNil(a.settled)}
}

// doneArgs returns the arrays as completeDone takes them.
func (a *completionArrays) doneArgs() []any {
	return []any{a.ids, a.events, a.destinations, a.errors, a.codes, a.kinds, a.nows, a.attemptedAt, a.durations,
		sqlstore.NonNil(a.settled)}
}

// doneHeldArgs returns the arrays as completeDoneHeld takes them.
func (a *completionArrays) doneHeldArgs() []any {
	return []any{a.ids, a.tokens, a.errors, a.codes, a.kinds, a.nows, a.attemptedAt, a.durations,
		sqlstore.NonNil(a.settled)}
}

// allDone tells whether every outcome in a is done.
func (a *completionArrays) allDone() bool {
	return !slices.ContainsFunc(a.statuses, func(s string) bool { return s != string(store.StatusDone) })
}

func (a *completionArrays) add(r sqlstore.CompletionRow) {
	a.ids = append(a.ids, r.DeliveryID)
	a.tokens = append(a.tokens, r.LeaseToken)
	a.statuses = append(a.statuses, string(r.Status))
	a.nexts = append(a.nexts, r.Next)
	a.errors = append(a.errors, r.Attempt.Error)
	a.codes = append(a.codes, int32(r.Attempt.StatusCode))
	a.finished = append(a.finished, r.Finished)
	a.nows = append(a.nows, r.Now)
	a.attemptedAt = append(a.attemptedAt, r.Attempt.AttemptedAt)
	a.durations = append(a.durations, r.Attempt.Duration.Milliseconds())
	a.snippets = append(a.snippets, r.Snippet)
	a.keyIDs = append(a.keyIDs, r.KeyID)
	a.headers = append(a.headers, r.Headers)
	a.kinds = append(a.kinds, string(r.Kind))
	a.events = append(a.events, r.EventID)
	a.destinations = append(a.destinations, r.Destination)
	a.deferred = append(a.deferred, r.WritesDeferred())
}

// ReleaseDeliveries hands back the deliveries of rs still held under
// their lease tokens, uncounting the attempt their claim counted: pending
// when that leaves no attempt, else failed. Each is due at the earlier of
// its due time before the claim and the current time, so that it is due
// now by the claimer's clock as by this process's. Others are left alone.
func (s *Store) ReleaseDeliveries(ctx context.Context, rs []store.Release) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("release deliveries: %w", err)
	}
	defer release()
	if len(rs) == 0 {
		return nil
	}
	ids, tokens := sqlstore.SplitReleases(rs)
	now := time.Now()
	deferred := sqlstore.DeferredReleases(rs, now)
	if len(deferred.IDs) == 0 {
		if _, err := s.other.Exec(ctx, s.sql.SQL(releaseDeliveries), ids, tokens, now); err != nil {
			return fmt.Errorf("release deliveries: %w", s.mapErr(ctx, err))
		}
		return nil
	}
	// A deferred delivery's row is written first, as a claim's sweep
	// would, and then released as any other.
	b := &pgx.Batch{}
	b.Queue(s.sql.SQL(writeDeferred), now, deferred.IDs, deferred.Events, deferred.Destinations, deferred.Tokens, deferred.Until)
	b.Queue(s.sql.SQL(releaseDeliveries), ids, tokens, now)
	if err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() }); err != nil {
		return fmt.Errorf("release deliveries: %w", s.mapErr(ctx, err))
	}
	s.leases.Settle(deferred.IDs)
	return nil
}
