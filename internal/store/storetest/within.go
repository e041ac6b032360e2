package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

// The tests of CompleteWithin write to a table of their own, next to the
// store's, through the driver's native transaction, as an application's
// handler does.

const (
	createEffects = `CREATE TABLE IF NOT EXISTS within_effects (v text PRIMARY KEY)`
	countEffects  = `SELECT count(*) FROM within_effects`
)

var (
	errHandler = errors.New("handler failed")
	errProbe   = errors.New("probe done")
)

// execTx runs query in tx, the driver's native transaction.
func execTx(ctx context.Context, tx any, query string) error {
	switch tx := tx.(type) {
	case *sql.Tx:
		_, err := tx.ExecContext(ctx, query)
		return err
	case pgx.Tx:
		_, err := tx.Exec(ctx, query)
		return err
	}
	return fmt.Errorf("transaction of type %T is neither *sql.Tx nor pgx.Tx", tx)
}

// countTx returns the number of rows in within_effects, read in tx.
func countTx(ctx context.Context, tx any) (n int64, err error) {
	switch tx := tx.(type) {
	case *sql.Tx:
		err = tx.QueryRowContext(ctx, countEffects).Scan(&n)
	case pgx.Tx:
		err = tx.QueryRow(ctx, countEffects).Scan(&n)
	default:
		err = fmt.Errorf("transaction of type %T is neither *sql.Tx nor pgx.Tx", tx)
	}
	return n, err
}

// writeEffect returns a WithinFunc that records the effect v.
func writeEffect(v string) store.WithinFunc {
	return func(ctx context.Context, tx any, _ *store.Completion) error {
		if err := execTx(ctx, tx, createEffects); err != nil {
			return err
		}
		return execTx(ctx, tx, "INSERT INTO within_effects (v) VALUES ('"+v+"')")
	}
}

// effects counts the committed effects. It reads them inside a
// CompleteWithin of a delivery of its own to destination "probe", which
// it then rolls back.
func effects(t *testing.T, s store.DB) int64 {
	t.Helper()
	e := dueEvent("probe_"+newID(), baseTime)
	ingest(t, s, item(e, "probe"))
	claims := claim(t, s, "probe", 1, baseTime.Add(time.Hour))
	var n int64
	err := s.CompleteWithin(context.Background(), outcome(claims[0], store.StatusDone, baseTime.Add(time.Hour)),
		func(ctx context.Context, tx any, _ *store.Completion) error {
			if err := execTx(ctx, tx, createEffects); err != nil {
				return err
			}
			var err error
			if n, err = countTx(ctx, tx); err != nil {
				return err
			}
			return errProbe
		})
	if !errors.Is(err, errProbe) {
		t.Fatalf("count effects: %v", err)
	}
	return n
}

// claimOne ingests one event for destination "billing" and claims it.
func claimOne(t *testing.T, s store.DB, providerID string) (store.Event, store.Claim) {
	t.Helper()
	e := dueEvent(providerID, baseTime)
	ingest(t, s, item(e, "billing"))
	claims := claim(t, s, "billing", 1, baseTime.Add(time.Minute))
	checkClaimed(t, claims, e)
	return e, claims[0]
}

// testWithinCommitsTogether checks that the callback's write and the
// outcome commit together, with the attempt the callback completed.
func testWithinCommitsTogether(t *testing.T, s store.DB) {
	for _, status := range []store.DeliveryStatus{store.StatusDone, store.StatusSkipped} {
		t.Run(string(status), func(t *testing.T) {
			e, c := claimOne(t, s, "evt_within_"+string(status))
			now := baseTime.Add(2 * time.Minute)
			err := s.CompleteWithin(context.Background(), outcome(c, store.StatusDone, now),
				func(ctx context.Context, tx any, comp *store.Completion) error {
					comp.Status, comp.Attempt.Error, comp.Attempt.Duration = status, "stale: "+string(status), 42*time.Millisecond
					return writeEffect(string(status))(ctx, tx, comp)
				})
			if err != nil {
				t.Fatalf("CompleteWithin: %v", err)
			}
			d := theDelivery(t, s, e.ID)
			if d.Status != status || d.LastError != "stale: "+string(status) {
				t.Errorf("delivery = %+v, want %s with the callback's error", d, status)
			}
			checkTime(t, "FinishedAt", d.FinishedAt, now)
			as := attempts(t, s, d.ID)
			if len(as) != 1 || as[0].Duration != 42*time.Millisecond {
				t.Errorf("attempts = %+v, want one of 42ms", as)
			}
			checkLeaseLost(t, s, outcome(c, store.StatusDone, now))
		})
	}
	if n := effects(t, s); n != 2 {
		t.Errorf("%d effects committed, want 2", n)
	}
}

// testWithinRollsBackTogether checks that a callback's error rolls its
// writes back and records nothing: the delivery stays held under its
// lease, and the failure can then be recorded as usual.
func testWithinRollsBackTogether(t *testing.T, s store.DB) {
	e, c := claimOne(t, s, "evt_within_error")
	now := baseTime.Add(2 * time.Minute)
	err := s.CompleteWithin(context.Background(), outcome(c, store.StatusDone, now),
		func(ctx context.Context, tx any, comp *store.Completion) error {
			if err := writeEffect("lost")(ctx, tx, comp); err != nil {
				return err
			}
			return fmt.Errorf("mark paid: %w", errHandler)
		})
	if !errors.Is(err, errHandler) {
		t.Fatalf("CompleteWithin = %v, want the callback's error", err)
	}
	d := theDelivery(t, s, e.ID)
	if d.Status != store.StatusProcessing || len(attempts(t, s, d.ID)) != 0 {
		t.Errorf("delivery = %+v after a failed callback, want processing with no attempt", d)
	}
	if n := effects(t, s); n != 0 {
		t.Errorf("%d effects committed after a failed callback, want 0", n)
	}
	complete(t, s, outcome(c, store.StatusFailed, now))
	if d := theDelivery(t, s, e.ID); d.Status != store.StatusFailed {
		t.Errorf("status = %s after recording the failure, want failed", d.Status)
	}
}

// testWithinPanicRollsBack checks that a panicking callback rolls back,
// the panic goes on, and the store keeps working.
func testWithinPanicRollsBack(t *testing.T, s store.DB) {
	e, c := claimOne(t, s, "evt_within_panic")
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the callback's panic", r)
			}
		}()
		_ = s.CompleteWithin(context.Background(), outcome(c, store.StatusDone, baseTime),
			func(ctx context.Context, tx any, comp *store.Completion) error {
				if err := writeEffect("lost")(ctx, tx, comp); err != nil {
					return err
				}
				panic("boom")
			})
	}()
	if n := effects(t, s); n != 0 {
		t.Errorf("%d effects committed after a panic, want 0", n)
	}
	if d := theDelivery(t, s, e.ID); d.Status != store.StatusProcessing {
		t.Errorf("status = %s after a panic, want processing", d.Status)
	}
}

// testWithinLeaseLost checks that a lost lease is reported before the
// callback runs.
func testWithinLeaseLost(t *testing.T, s store.DB) {
	_, c := claimOne(t, s, "evt_within_lost")
	if err := s.ReleaseDeliveries(context.Background(), []store.Release{{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken}}); err != nil {
		t.Fatal(err)
	}
	called := false
	err := s.CompleteWithin(context.Background(), outcome(c, store.StatusDone, baseTime),
		func(context.Context, any, *store.Completion) error { called = true; return nil })
	if !errors.Is(err, store.ErrLeaseLost) || called {
		t.Errorf("CompleteWithin after release = %v (callback called: %v), want ErrLeaseLost without a call", err, called)
	}
}

// testWithinRejectsFailedStatus checks that only done and skipped commit
// with a callback's writes.
func testWithinRejectsFailedStatus(t *testing.T, s store.DB) {
	e, c := claimOne(t, s, "evt_within_failed")
	err := s.CompleteWithin(context.Background(), outcome(c, store.StatusFailed, baseTime), writeEffect("x"))
	if err == nil {
		t.Fatal("CompleteWithin with status failed succeeded")
	}
	if d := theDelivery(t, s, e.ID); d.Status != store.StatusProcessing {
		t.Errorf("status = %s, want processing", d.Status)
	}
}

// testWithinHoldsOffClaimers checks that while a callback runs, the
// delivery is not claimed again even once its lease has run out, nor
// found lost by a claim that counts lost attempts, and that
// an ingest made meanwhile completes once the transaction ends (on SQLite
// it waits for the writer; on PostgreSQL it does not wait at all).
func testWithinHoldsOffClaimers(t *testing.T, s store.DB) {
	e, c := claimOne(t, s, "evt_within_hold")
	later := baseTime.Add(time.Minute + 2*testLease) // the lease has run out
	claimed := make(chan []store.Claim, 1)
	ingested := make(chan error, 1)
	err := s.CompleteWithin(context.Background(), outcome(c, store.StatusDone, baseTime),
		func(ctx context.Context, tx any, comp *store.Completion) error {
			go func() {
				cs, err := s.ClaimDeliveries(context.Background(), store.ClaimRequest{
					Destination: "billing", Max: 1, Lease: testLease, Now: later, MaxAttempts: 1,
				})
				if err != nil {
					t.Errorf("claim while held: %v", err)
				}
				claimed <- cs
			}()
			go func() {
				_, err := s.Ingest(context.Background(), []store.IngestItem{item(dueEvent("evt_within_meanwhile", baseTime), "audit")})
				ingested <- err
			}()
			select { // PostgreSQL answers now; SQLite once the writer is free
			case cs := <-claimed:
				claimed <- cs
			case <-time.After(300 * time.Millisecond):
			}
			return writeEffect("held")(ctx, tx, comp)
		})
	if err != nil {
		t.Fatalf("CompleteWithin: %v", err)
	}
	select {
	case cs := <-claimed:
		if len(cs) != 0 {
			t.Errorf("claimed %d deliveries while the callback held one, want 0", len(cs))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("claim still waiting 10s after the transaction ended")
	}
	select {
	case err := <-ingested:
		if err != nil {
			t.Errorf("ingest while a callback ran: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ingest still waiting 10s after the transaction ended")
	}
	d := theDelivery(t, s, e.ID)
	if as := attempts(t, s, d.ID); d.Status != store.StatusDone || len(as) != 1 || as[0].Error != "" {
		t.Errorf("delivery = %+v with attempts %+v, want done by its one attempt", d, as)
	}
}
