package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

var _ store.Queue = (*Store)(nil)

// ClaimDeliveries leases up to req.Max deliveries of req.Destination due
// at req.Now (the current time when zero), oldest due first, with their
// events. A Max below 1 claims nothing; a Lease below 1ns is an error.
//
// It selects the claimable rows and leases them in one immediate
// transaction on the writer, so claims and every other write are
// serialized and no two claimers can hold one row, or two rows of one
// ordering key. SQLite has no notification across processes: the relay
// wakes its delivery engine itself when an ingest commits.
func (s *Store) ClaimDeliveries(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("claim deliveries of %s: %w", req.Destination, err)
	}
	defer release()
	if req.Max <= 0 {
		return []store.Claim{}, nil
	}
	if req.Lease <= 0 {
		return nil, fmt.Errorf("claim deliveries of %s: lease %v is not positive", req.Destination, req.Lease)
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if paused, err := s.isPaused(ctx, req.Destination); err != nil || paused {
		if err != nil {
			return nil, fmt.Errorf("claim deliveries of %s: %w", req.Destination, mapErr(ctx, err))
		}
		return []store.Claim{}, nil // a paused destination's deliveries wait
	}
	claims, err := s.claim(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("claim deliveries of %s: %w", req.Destination, mapErr(ctx, err))
	}
	sqlstore.SortClaims(claims)
	return claims, nil
}

func (s *Store) claim(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	st, err := s.prepared(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.prepareMultiRows(ctx, &s.claimRows, &s.selectClaimed); err != nil {
		return nil, err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	// The sweep writes the rows of deferred deliveries whose batch's
	// lease has run out, of every destination, so that this claim and
	// the next claims of the others take them over.
	wrote, err := sweepLeases(ctx, tx, st, req.Now, req.Now, sweepBatch)
	if err != nil {
		return nil, err
	}
	countLost := req.MaxAttempts > 0
	var lost []store.Claim
	if countLost {
		var ended bool
		if lost, ended, err = s.recordLost(ctx, tx, st, req); err != nil {
			return nil, err
		}
		wrote = wrote || ended
	}
	ids, err := queryIDs(ctx, tx.StmtContext(ctx, st.selectClaimable), req.Destination, micros(req.Now), req.Max, !countLost)
	if err != nil {
		return nil, err
	}
	claims := []store.Claim{}
	if len(ids) > 0 {
		tokens, err := sqlstore.NewLeaseTokens(len(ids))
		if err != nil {
			return nil, err
		}
		if claims, err = s.readClaimed(ctx, tx, ids); err != nil {
			return nil, err
		}
		if err := s.leaseRows(ctx, tx, claims, tokens, req.Now.Add(req.Lease), req.Now); err != nil {
			return nil, err
		}
	}
	if len(ids) == 0 && !wrote {
		return claims, nil // nothing written: the deferred rollback ends the transaction
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	return append(claims, lost...), nil
}

// recordLost ends, as lost attempts, the leases of req's destination that
// ran out by req.Now (see store.Queue.ClaimDeliveries), in tx. It
// returns the deliveries it marked dead, with their events, and whether
// it ended any lease.
func (s *Store) recordLost(ctx context.Context, tx *sql.Tx, st *writeStmts, req store.ClaimRequest) (dead []store.Claim, wrote bool, err error) {
	ids, err := queryIDs(ctx, tx.StmtContext(ctx, st.insertLostAttempts),
		req.Destination, micros(req.Now), store.MaxLostPerClaim, store.LostAttemptError)
	if err != nil || len(ids) == 0 {
		return nil, false, err
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, false, err
	}
	rows, err := tx.StmtContext(ctx, st.markLost).QueryContext(ctx, string(list), req.MaxAttempts, micros(req.Now), store.LostAttemptError)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var deadIDs []int64
	for rows.Next() {
		var (
			id     int64
			isDead bool
		)
		if err := rows.Scan(&id, &isDead); err != nil {
			return nil, false, err
		}
		if isDead {
			deadIDs = append(deadIDs, id)
		}
	}
	if err := rows.Err(); err != nil || len(deadIDs) == 0 {
		return nil, err == nil, err
	}
	dead, err = s.readClaimed(ctx, tx, deadIDs) // claim prepared its statements
	return dead, err == nil, err
}

// queryIDs returns the ids a query of one integer column selects.
func queryIDs(ctx context.Context, stmt *sql.Stmt, args ...any) ([]int64, error) {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// readClaimed reads the deliveries ids and their events, in the order
// the statement returns them, with the selectClaimed statements.
// prepareMultiRows must have prepared them.
func (s *Store) readClaimed(ctx context.Context, tx *sql.Tx, ids []int64) ([]store.Claim, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	claims := make([]store.Claim, 0, len(ids))
	err := s.queryChunks(ctx, tx, &s.selectClaimed, 1, args, func(rows *sql.Rows) error {
		var (
			d sqlstore.DeliveryRow
			e sqlstore.EventRow
		)
		if err := rows.Scan(append(d.Dest(), e.Dest()...)...); err != nil {
			return err
		}
		ev, err := e.Event(s.payloads)
		if err != nil {
			return err
		}
		claims = append(claims, store.Claim{Delivery: d.Delivery(), Event: ev})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(claims) != len(ids) {
		return nil, fmt.Errorf("read %d of %d claimed deliveries", len(claims), len(ids))
	}
	return claims, nil
}

// leaseRows leases claims' deliveries with tokens until leaseUntil, at
// now, with the claimRows statements, and sets in claims what the lease
// changed. prepareMultiRows must have prepared them.
func (s *Store) leaseRows(ctx context.Context, tx *sql.Tx, claims []store.Claim, tokens []string, leaseUntil, now time.Time) error {
	until, at := micros(leaseUntil), micros(now)
	args := make([]any, 0, 4*len(claims))
	for i, c := range claims {
		args = append(args, c.Delivery.ID, tokens[i], until, at)
	}
	if err := s.execChunks(ctx, tx, &s.claimRows, 4, args); err != nil {
		return err
	}
	leasedUntil, updatedAt := fromMicros(until), fromMicros(at) // as stored
	for i := range claims {
		d := &claims[i].Delivery
		d.Status = store.StatusProcessing
		d.Attempts++
		d.LeaseUntil = leasedUntil
		d.UpdatedAt = updatedAt
		claims[i].LeaseToken = tokens[i]
	}
	return nil
}

// sweepBatch is how many rows of delivery_leases a claim sweeps at most.
const sweepBatch = 256

// NextDue returns the earliest due time or lease end among the
// destination's live deliveries, or the earliest lease end of deferred
// deliveries, of any destination, not yet swept (a claim sweeps them);
// ok is false when there is none.
func (s *Store) NextDue(ctx context.Context, destination string) (time.Time, bool, error) {
	release, err := s.enter()
	if err != nil {
		return time.Time{}, false, fmt.Errorf("next due of %s: %w", destination, err)
	}
	defer release()
	if paused, err := s.isPaused(ctx, destination); err != nil || paused {
		if err != nil {
			return time.Time{}, false, fmt.Errorf("next due of %s: %w", destination, mapErr(ctx, err))
		}
		return time.Time{}, false, nil // nothing is due while it is paused
	}
	var at sql.NullInt64
	if err := s.reader.QueryRowContext(ctx, s.rewriter.SQL(nextDue), destination).Scan(&at); err != nil {
		return time.Time{}, false, fmt.Errorf("next due of %s: %w", destination, mapErr(ctx, err))
	}
	return fromNullMicros(at), at.Valid, nil
}
