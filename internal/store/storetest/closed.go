package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// afterCloseExempt are the methods of store.DB that do not fail once the
// store is closed: a second Close is a no-op, and SupportsListener,
// SupportsPartitions and TransferTables declare what the driver has, open
// or not.
var afterCloseExempt = []string{"Close", "SupportsListener", "SupportsPartitions", "TransferTables"}

// afterClose calls every other method of store.DB, with arguments that
// would make it do work on an open store, and returns its error.
func afterClose(s store.DB, now time.Time) map[string]func(ctx context.Context) error {
	e := newEvent("stripe", "evt_closed")
	return map[string]func(ctx context.Context) error{
		// store.Store
		"Migrate": s.Migrate,
		"Ping":    s.Ping,
		"Ingest": func(ctx context.Context) error {
			_, err := s.Ingest(ctx, []store.IngestItem{item(e, "billing")})
			return err
		},
		"GetEvent": func(ctx context.Context) error {
			_, err := s.GetEvent(ctx, e.ID)
			return err
		},
		"EventByProviderID": func(ctx context.Context) error {
			_, err := s.EventByProviderID(ctx, "stripe", "evt_closed")
			return err
		},
		"CountEvents": func(ctx context.Context) error {
			_, err := s.CountEvents(ctx, "")
			return err
		},
		"EventDeliveries": func(ctx context.Context) error {
			_, err := s.EventDeliveries(ctx, e.ID)
			return err
		},
		"GetDelivery": func(ctx context.Context) error {
			_, err := s.GetDelivery(ctx, 1)
			return err
		},
		"RecordRejections": func(ctx context.Context) error {
			return s.RecordRejections(ctx, []store.Rejection{{At: now, Source: "stripe", Reason: "bad signature", BodySize: 1}})
		},
		"Rejections": func(ctx context.Context) error {
			_, err := s.Rejections(ctx, 10)
			return err
		},
		"TrimRejections": func(ctx context.Context) error {
			_, err := s.TrimRejections(ctx, 10)
			return err
		},

		// store.Queue
		"ClaimDeliveries": func(ctx context.Context) error {
			_, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 1, Lease: testLease, Now: now})
			return err
		},
		"CompleteDelivery": func(ctx context.Context) error {
			return s.CompleteDelivery(ctx, closedCompletion(now))
		},
		"CompleteDeliveries": func(ctx context.Context) error {
			_, err := s.CompleteDeliveries(ctx, []store.Completion{closedCompletion(now)})
			return err
		},
		"ReleaseDeliveries": func(ctx context.Context) error {
			return s.ReleaseDeliveries(ctx, []store.Release{{DeliveryID: 1, LeaseToken: "token"}})
		},
		"RegisterHandlers": func(ctx context.Context) error {
			_, err := s.RegisterHandlers(ctx, []store.HandlerDestination{{Name: "orders", Sources: []string{"stripe"}}}, now)
			return err
		},
		"HandlerDestinations": func(ctx context.Context) error {
			_, err := s.HandlerDestinations(ctx)
			return err
		},
		"SnoozeDelivery": func(ctx context.Context) error {
			return s.SnoozeDelivery(ctx, store.Snooze{DeliveryID: 1, LeaseToken: "token", Until: now.Add(time.Hour), Now: now})
		},
		"NextDue": func(ctx context.Context) error {
			_, _, err := s.NextDue(ctx, "billing")
			return err
		},
		"CompleteWithin": func(ctx context.Context) error {
			return s.CompleteWithin(ctx, closedCompletion(now), func(context.Context, any, *store.Completion) error { return nil })
		},
		"DeliveryAttempts": func(ctx context.Context) error {
			_, err := s.DeliveryAttempts(ctx, 1)
			return err
		},
		"IsPaused": func(ctx context.Context) error {
			_, err := s.IsPaused(ctx, "billing")
			return err
		},

		// store.Search
		"SearchEvents": func(ctx context.Context) error {
			_, err := s.SearchEvents(ctx, store.SearchRequest{IDPrefix: "evt_", Limit: 10})
			return err
		},

		// store.Operations
		"ListEvents": func(ctx context.Context) error {
			_, _, err := s.ListEvents(ctx, store.ListRequest{Limit: 10})
			return err
		},
		"Replay": func(ctx context.Context) error {
			_, err := s.Replay(ctx, store.ReplayRequest{Filter: store.EventFilter{IDs: []string{e.ID}}, Actor: "ops", Now: now})
			return err
		},
		"BackfillCandidates": func(ctx context.Context) error {
			_, err := s.BackfillCandidates(ctx, "billing", []string{"stripe"}, now.Add(-time.Hour), now, "", 10)
			return err
		},
		"EventBodies": func(ctx context.Context) error {
			_, err := s.EventBodies(ctx, []string{e.ID})
			return err
		},
		"CreateDeliveries": func(ctx context.Context) error {
			_, err := s.CreateDeliveries(ctx, []store.BackfillDelivery{{EventID: e.ID, Destination: "billing"}}, now)
			return err
		},
		"CreateJobDeliveries": func(ctx context.Context) error {
			_, _, err := s.CreateJobDeliveries(ctx, []store.BackfillDelivery{{EventID: e.ID, Destination: "billing"}}, now,
				store.JobTie{ID: "job_closed", Node: "node", Lease: time.Minute}, func(int64) store.JobProgress { return store.JobProgress{} })
			return err
		},
		"RecordBackfill": func(ctx context.Context) error {
			return s.RecordBackfill(ctx, "ops", "billing", now.Add(-time.Hour), now, 1, false, now)
		},
		"Stats": func(ctx context.Context) error {
			_, err := s.Stats(ctx, now)
			return err
		},
		"CountIngest": func(ctx context.Context) error {
			return s.CountIngest(ctx, map[string]store.SourceStats{"stripe": {Received: 1}})
		},
		"Prune": func(ctx context.Context) error {
			_, err := s.Prune(ctx, store.PruneRequest{DoneBefore: now, DeadBefore: now, Limit: 10})
			return err
		},
		"SetPaused": func(ctx context.Context) error {
			return s.SetPaused(ctx, "billing", true, "ops", now)
		},
		"Paused": func(ctx context.Context) error {
			_, err := s.Paused(ctx)
			return err
		},
		"SkipDelivery": func(ctx context.Context) error {
			_, err := s.SkipDelivery(ctx, 1, "ops", now)
			return err
		},
		"Failures": func(ctx context.Context) error {
			_, err := s.Failures(ctx, store.FailuresRequest{Destination: "billing"})
			return err
		},
		"AuditLog": func(ctx context.Context) error {
			_, err := s.AuditLog(ctx, now.Add(-time.Hour), 10)
			return err
		},

		// store.Signals and store.MigrationStatus
		"CountSlots": func(ctx context.Context) error {
			return s.CountSlots(ctx, []store.SlotCount{{Source: "stripe", Secret: "fp0", Verified: 1, Last: now}}, now)
		},
		"SlotUsage": func(ctx context.Context) error {
			_, err := s.SlotUsage(ctx, now.Add(-time.Hour))
			return err
		},
		"RecentEventTimes": func(ctx context.Context) error {
			_, err := s.RecentEventTimes(ctx, "stripe", 10)
			return err
		},
		"PendingMigrations": func(ctx context.Context) error {
			_, err := s.PendingMigrations(ctx)
			return err
		},

		// store.Activity, store.Listener and store.Health
		"Activity": func(ctx context.Context) error {
			_, err := s.Activity(ctx, now.Add(-time.Hour), now, time.Minute)
			return err
		},
		"Listen": func(ctx context.Context) error {
			_, err := s.Listen(ctx)
			return err
		},
		"Fatal": func(context.Context) error { return s.Fatal() },

		// store.Erasure
		"PurgeEvents": func(ctx context.Context) error {
			_, err := s.PurgeEvents(ctx, store.PurgeRequest{IDs: []string{e.ID}, Actor: "ops", Reason: "erasure", Now: now})
			return err
		},
		"Tombstones": func(ctx context.Context) error {
			_, err := s.Tombstones(ctx, []string{e.ID})
			return err
		},
		"RecordPurge": func(ctx context.Context) error {
			return s.RecordPurge(ctx, store.PurgeAudit{Actor: "ops", Reason: "erasure", Now: now})
		},
		"ClearErased": func(ctx context.Context) error {
			_, err := s.ClearErased(ctx)
			return err
		},
		"AuditKey": func(ctx context.Context) error {
			_, err := s.AuditKey(ctx)
			return err
		},

		// store.PayloadKeys: closed comes before a missing key.
		"PayloadKeyCounts": func(ctx context.Context) error {
			_, err := s.PayloadKeyCounts(ctx)
			return err
		},
		"ResealEvents": func(ctx context.Context) error {
			_, _, err := s.ResealEvents(ctx, "", 10)
			return err
		},
		"ResealAttempts": func(ctx context.Context) error {
			_, _, err := s.ResealAttempts(ctx, 0, 10)
			return err
		},

		// store.ConsoleSessions
		"OpenConsoleSession": func(ctx context.Context) error {
			return s.OpenConsoleSession(ctx, consoleSession("closed", "ops", now, time.Hour), 64)
		},
		"ConsoleSession": func(ctx context.Context) error {
			_, err := s.ConsoleSession(ctx, []byte("key"), now)
			return err
		},
		"TouchConsoleSession": func(ctx context.Context) error {
			return s.TouchConsoleSession(ctx, []byte("key"), now)
		},
		"SetConsoleFlash": func(ctx context.Context) error {
			return s.SetConsoleFlash(ctx, []byte("key"), "flash")
		},
		"TakeConsoleFlash": func(ctx context.Context) error {
			_, err := s.TakeConsoleFlash(ctx, []byte("key"), "flash")
			return err
		},
		"EndConsoleSession": func(ctx context.Context) error {
			return s.EndConsoleSession(ctx, []byte("key"))
		},

		// store.Transfer
		"ExportRows": func(ctx context.Context) error {
			_, _, err := s.ExportRows(ctx, "events", nil, 10)
			return err
		},
		"ImportRows": func(ctx context.Context) error {
			return s.ImportRows(ctx, store.TableRows{Table: "paused_destinations", Columns: []string{"destination", "paused_at", "actor"},
				Rows: [][]any{{"billing", now, "ops"}}})
		},
		"FinishImport": s.FinishImport,
		"TableCounts": func(ctx context.Context) error {
			_, err := s.TableCounts(ctx)
			return err
		},

		// store.FleetLeases
		"ClaimFleetLease": func(ctx context.Context) error {
			_, err := s.ClaimFleetLease(ctx, "runner", "node-a", time.Minute)
			return err
		},
		"ReleaseFleetLease": func(ctx context.Context) error { return s.ReleaseFleetLease(ctx, "runner", "node-a") },
		"ReadFleetLease": func(ctx context.Context) error {
			_, err := s.ReadFleetLease(ctx, "runner")
			return err
		},

		// store.FleetAlerts
		"CountRejections": func(ctx context.Context) error {
			return s.CountRejections(ctx, []store.RejectionCount{{Source: "stripe", Reason: "signature_mismatch", At: now, N: 1}})
		},
		"RejectionsSince": func(ctx context.Context) error {
			_, err := s.RejectionsSince(ctx, now.Add(-time.Hour))
			return err
		},
		"DropRejectionCounts": func(ctx context.Context) error {
			_, err := s.DropRejectionCounts(ctx, now)
			return err
		},
		"MarkAlert": func(ctx context.Context) error {
			_, err := s.MarkAlert(ctx, "signature_failures", "stripe", now, time.Minute)
			return err
		},

		// store.Partitions
		"Partitioned": func(ctx context.Context) error {
			_, err := s.Partitioned(ctx)
			return err
		},
		"EnablePartitions": func(ctx context.Context) error {
			return s.EnablePartitions(ctx, store.PartitionsDaily, now, nil)
		},
		"MaintainPartitions": func(ctx context.Context) error {
			_, err := s.MaintainPartitions(ctx, store.PartitionRequest{Period: store.PartitionsDaily, Now: now, DropBefore: now})
			return err
		},
		"ListPartitions": func(ctx context.Context) error {
			_, err := s.ListPartitions(ctx)
			return err
		},

		// store.Fleet and store.Jobs
		"RecordNode": func(ctx context.Context) error {
			return s.RecordNode(ctx, store.Node{ID: "node", StartedAt: now, SeenAt: now})
		},
		"Nodes": func(ctx context.Context) error {
			_, err := s.Nodes(ctx, now.Add(-time.Minute), time.Time{})
			return err
		},
		"AnnounceReload": func(ctx context.Context) error { return s.AnnounceReload(ctx, "node") },
		"ListenReloads": func(ctx context.Context) error {
			_, err := s.ListenReloads(ctx)
			return err
		},
		"CreateJob": func(ctx context.Context) error {
			return s.CreateJob(ctx, store.JobRecord{ID: "job_closed", StartedAt: now}, time.Minute)
		},
		"SaveJob": func(ctx context.Context) error {
			_, err := s.SaveJob(ctx, store.JobRecord{ID: "job_closed"}, time.Minute)
			return err
		},
		"RenewJob": func(ctx context.Context) error { return s.RenewJob(ctx, "job_closed", "node", time.Minute) },
		"ExpiredJobs": func(ctx context.Context) error {
			_, err := s.ExpiredJobs(ctx)
			return err
		},
		"TakeOverJob": func(ctx context.Context) error {
			_, err := s.TakeOverJob(ctx, "job_closed", "node", time.Minute)
			return err
		},
		"GetJob": func(ctx context.Context) error {
			_, err := s.GetJob(ctx, "job_closed")
			return err
		},
		"ListJobs": func(ctx context.Context) error {
			_, err := s.ListJobs(ctx)
			return err
		},
		"CancelJob": func(ctx context.Context) error {
			_, err := s.CancelJob(ctx, "job_closed", "ops")
			return err
		},
	}
}

// closedCompletion is a well-formed outcome for a delivery that may not
// exist.
func closedCompletion(now time.Time) store.Completion {
	return store.Completion{
		DeliveryID: 1, LeaseToken: "token", Status: store.StatusDone, Now: now,
		Attempt: store.Attempt{DeliveryID: 1, AttemptedAt: now, StatusCode: 200},
	}
}

// testCloseMakesUnavailable closes the store, then calls every method of
// store.DB: each fails with an error wrapping ErrUnavailable (none panics,
// none succeeds), except those in afterCloseExempt. The method set is read
// from the interface, so a method added to store.DB without a call here
// fails the test.
func testCloseMakesUnavailable(t *testing.T, s store.DB) {
	ctx := context.Background()
	supports := s.SupportsListener()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	calls := afterClose(s, baseTime)
	methods := reflect.TypeFor[store.DB]()
	for i := range methods.NumMethod() {
		name := methods.Method(i).Name
		call, ok := calls[name]
		switch {
		case slices.Contains(afterCloseExempt, name):
			continue
		case !ok:
			t.Errorf("%s: store.DB has it, the after-Close check does not call it", name)
			continue
		}
		if err := callRecovered(ctx, call); !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s after Close: error = %v, want one wrapping ErrUnavailable", name, err)
		}
	}
	for name := range calls {
		if _, ok := methods.MethodByName(name); !ok {
			t.Errorf("%s: the after-Close check calls it, store.DB has no such method", name)
		}
	}
	if got := s.SupportsListener(); got != supports {
		t.Errorf("SupportsListener after Close = %v, want %v as before", got, supports)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// callRecovered runs call and turns a panic into an error.
func callRecovered(ctx context.Context, call func(context.Context) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return call(ctx)
}
