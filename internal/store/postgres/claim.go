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

var _ store.Queue = (*Store)(nil)

// ClaimDeliveries leases up to req.Max deliveries of req.Destination due
// at req.Now (the current time when zero), oldest due first, with their
// events. A Max below 1 claims nothing; a Lease below 1ns is an error.
//
// It runs one transaction of two statements. The first picks the
// candidates from the partial indexes of live deliveries and locks them
// (FOR UPDATE SKIP LOCKED, so concurrent claimers never receive the same
// row), and takes a transaction advisory lock on each candidate's
// (destination, ordering key), dropping the candidates whose key another
// claim is locking. The second, whose snapshot is taken once those locks
// are held and so sees every earlier claim of those keys committed,
// checks again that each candidate is still claimable and leases it. Two
// claimers therefore never both hold deliveries of one key, however their
// statements interleave. Only a claim that holds a delivery with an
// ordering key waits for its WAL flush (see claimCandidates).
func (s *Store) ClaimDeliveries(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	defer release()
	claims := []store.Claim{}
	if req.Max <= 0 {
		return claims, nil
	}
	if req.Lease <= 0 {
		return nil, fmt.Errorf("claim deliveries of %s: lease %v is not positive", req.Destination, req.Lease)
	}
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	if paused, err := s.isPaused(ctx, req.Destination); err != nil || paused {
		if err != nil {
			return nil, fmt.Errorf("claim deliveries of %s: %w", req.Destination, s.mapErr(ctx, err))
		}
		return claims, nil // a paused destination's deliveries wait
	}
	err = pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		lost, ids, events, err := s.claimCandidates(ctx, tx, req, now)
		if err != nil {
			return err
		}
		claims = append(claims, lost...)
		if len(ids) == 0 {
			return nil
		}
		tokens, err := sqlstore.NewLeaseTokens(len(ids))
		if err != nil {
			return err
		}
		statement, args := claimRows, []any{req.Destination, now, now.Add(req.Lease), ids, tokens}
		if s.partitioned.Load() {
			statement, args = claimRowsKeyed, append(args, events)
		}
		rows, err := tx.Query(ctx, s.sql.SQL(statement), args...)
		if err != nil {
			return err
		}
		if claims, err = pgx.AppendRows(claims, rows, s.scanClaim); err != nil {
			return err
		}
		if slices.ContainsFunc(claims, func(c store.Claim) bool { return c.Delivery.OrderingKey != "" }) {
			_, err = tx.Exec(ctx, syncCommit)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries of %s: %w", req.Destination, s.mapErr(ctx, err))
	}
	sqlstore.SortClaims(claims)
	return claims, nil
}

// claimCandidates runs claimCandidates in tx on its generic plan, and
// lets tx commit without waiting for its WAL flush; the settings and the
// statement go in one round trip, preceded by sweepLeases and, when req
// sets MaxAttempts, by recordLost. The sweep writes the rows of deferred
// deliveries whose batch's lease has run out, of every destination, so
// that this claim, and those the sweep wakes, take them over. It returns
// the deliveries recordLost found lost and marked dead, and the ids
// claimCandidates picked with their event ids.
//
// A claim lost in a server crash only hands its deliveries out again,
// which at-least-once delivery allows: the holder's outcomes then find no
// lease and are dropped, and the deliveries are claimed and sent again.
// A claim that holds a delivery with an ordering key waits for the flush
// (ClaimDeliveries turns it back on), since losing it could let a second
// claimer hold that key's head while the first still pushes it. A lost
// attempt lost in a server crash is found lost again by a later claim.
func (s *Store) claimCandidates(ctx context.Context, tx pgx.Tx, req store.ClaimRequest, now time.Time) (lost []store.Claim, ids []int64, events []string, err error) {
	b := &pgx.Batch{}
	b.Queue(genericPlans)
	b.Queue(asyncCommit)
	b.Queue(s.sql.SQL(sweepLeases), now, sweepBatch, now)
	countLost := req.MaxAttempts > 0
	if countLost {
		b.Queue(s.sql.SQL(recordLost), req.Destination, now, store.MaxLostPerClaim, req.MaxAttempts, store.LostAttemptError)
	}
	b.Queue(s.sql.SQL(claimCandidates), req.Destination, now, req.Max, keyLockClass, !countLost)
	br := tx.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	for range 3 {
		if _, err := br.Exec(); err != nil {
			return nil, nil, nil, err
		}
	}
	if countLost {
		rows, err := br.Query()
		if err != nil {
			return nil, nil, nil, err
		}
		if lost, err = pgx.CollectRows(rows, s.scanClaim); err != nil {
			return nil, nil, nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, nil, nil, err
	}
	_, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (struct{}, error) {
		var (
			id    int64
			event string
		)
		err := row.Scan(&id, &event)
		ids, events = append(ids, id), append(events, event)
		return struct{}{}, err
	})
	return lost, ids, events, err
}

// sweepBatch is how many rows of delivery_leases a claim sweeps at most:
// a few seconds of a busy relay's ingest batches.
const sweepBatch = 256

// NextDue returns the earliest due time or lease end among the
// destination's live deliveries, or the earliest lease end of deferred
// deliveries, of any destination, not yet swept (a claim sweeps them);
// ok is false when there is none.
func (s *Store) NextDue(ctx context.Context, destination string) (time.Time, bool, error) {
	release, err := s.enter()
	if err != nil {
		return time.Time{}, false, fmt.Errorf("next due: %w", err)
	}
	defer release()
	if paused, err := s.isPaused(ctx, destination); err != nil || paused {
		if err != nil {
			return time.Time{}, false, fmt.Errorf("next due of %s: %w", destination, s.mapErr(ctx, err))
		}
		return time.Time{}, false, nil // nothing is due while it is paused
	}
	var at *time.Time
	if err := s.other.QueryRow(ctx, s.sql.SQL(nextDue), destination).Scan(&at); err != nil {
		return time.Time{}, false, fmt.Errorf("next due of %s: %w", destination, s.mapErr(ctx, err))
	}
	return fromNullTime(at), at != nil, nil
}

// scanClaim reads one row of the columns claimRows returns.
func (s *Store) scanClaim(row pgx.CollectableRow) (store.Claim, error) {
	var (
		d     sqlstore.DeliveryRow
		e     sqlstore.EventRow
		token string
	)
	dest := append(d.Dest(), &token)
	if err := row.Scan(append(dest, e.Dest()...)...); err != nil {
		return store.Claim{}, err
	}
	ev, err := e.Event(s.payloads)
	if err != nil {
		return store.Claim{}, err
	}
	return store.Claim{Delivery: d.Delivery(), LeaseToken: token, Event: ev}, nil
}
