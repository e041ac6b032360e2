// Package storetest is the conformance suite of hookrelay's storage drivers:
// the behaviour every store.DB must have, specified as tests. Each
// driver's tests call Run with a function that opens a fresh, migrated store.
package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

// OpenFunc opens a fresh, empty, migrated store for one test and registers
// its cleanup (Close, dropping the database) with t.
type OpenFunc func(t *testing.T) store.DB

// A conformance test: what it checks, and the check on a fresh store.
type conformanceTest struct {
	name string
	run  func(t *testing.T, s store.DB)
}

// tests lists the suite; the checks live in files named for what they
// cover.
var tests = []conformanceTest{
	{"MigrateTwiceIsNoOp", testMigrateTwice},
	{"Ping", testPing},
	{"CloseMakesUnavailable", testCloseMakesUnavailable},
	{"ListenAsDeclared", testListenAsDeclared},
	{"CancelledContextIsUnavailable", testCancelledContext},

	{"IngestRoundTripsEveryField", testIngestRoundTrip},
	{"IngestEmptyBatch", testIngestEmptyBatch},
	{"IngestLargeBatch", testIngestLargeBatch},
	{"GetEventUnknownIsNotFound", testGetEventUnknown},
	{"EventByProviderID", testEventByProviderID},
	{"CountEvents", testCountEvents},

	{"DuplicateAcrossCalls", testDuplicateAcrossCalls},
	{"DuplicateWithinBatch", testDuplicateWithinBatch},
	{"SameProviderIDOnTwoSources", testSameProviderIDOnTwoSources},
	{"TakenIDFailsTheBatch", testIDTaken},
	{"ConcurrentIngestInsertsOnce", testConcurrentIngest},
	{"TextValuesKeptAlike", testTextValuesKeptAlike},
	{"IngestRefusesUnkeepableIDs", testIngestRefusesUnkeepableIDs},
	{"OrderingKeysOfAnyValue", testOrderingKeysOfAnyValue},
	{"ReplayedSignature", testReplayedSignature},
	{"ReplayedSignatureConcurrent", testReplayedSignatureConcurrent},
	{"BackfillOrderingKeysKeptAlike", testBackfillOrderingKeysKeptAlike},

	{"DeliveriesCreatedPending", testDeliveriesCreated},
	{"DeliveriesNoneListed", testDeliveriesNoneListed},
	{"DeliveriesOrderedByDestination", testDeliveriesOrdered},
	{"DeliveriesRepeatedDestination", testDeliveriesRepeatedDestination},
	{"DeliveriesOfUnknownEvent", testDeliveriesUnknownEvent},
	{"GetDeliveryAsListed", testGetDelivery},

	{"RejectionsNewestFirst", testRejectionsNewestFirst},
	{"RejectionsTrimKeepsNewest", testRejectionsTrim},

	{"ClaimOldestDueFirstWithEvent", testClaimOldestDueFirst},
	{"ClaimNotYetDue", testClaimNotYetDue},
	{"ClaimLeaseHoldsUntilItRunsOut", testClaimLeaseHolds},
	{"ClaimMax", testClaimMax},
	{"ClaimDestinationsIndependent", testClaimDestinationsIndependent},
	{"ClaimRejectsNoLease", testClaimRejectsNoLease},
	{"NextDue", testNextDue},
	{"CompleteOutcomes", testCompleteOutcomes},
	{"CompleteRetryThenDone", testCompleteRetryThenDone},
	{"CompleteStaleTokenRecordsNothing", testCompleteStaleToken},
	{"CompleteCutsSnippet", testCompleteSnippetCut},
	{"AttemptHeaders", testAttemptHeaders},
	{"CompleteRejectsLiveStatus", testCompleteRejectsLiveStatus},
	{"CompleteBatchOutcomes", testCompleteBatchOutcomes},
	{"CompleteBatchEmpty", testCompleteBatchEmpty},
	{"CompleteBatchRejectsLiveStatus", testCompleteBatchRejectsLiveStatus},
	{"CompleteBatchReleasesKeys", testCompleteBatchReleasesKeys},
	{"AttemptsOfUnknownDelivery", testAttemptsOfUnknownDelivery},
	{"ReleaseMakesDueNowUncounted", testRelease},
	{"SnoozeUncounted", testSnoozeUncounted},
	{"OrderingInterleavedKeys", testOrderingInterleavedKeys},
	{"OrderingFailingHeadBlocksOnlyItsKey", testOrderingFailingHeadBlocksOnlyItsKey},
	{"OrderingFinalOutcomeReleasesKey", testOrderingFinalReleasesKey},
	{"OrderingByOccurredAt", testOrderingByOccurredAt},
	{"OrderingLeaseHoldsKey", testOrderingLeaseHoldsKey},
	{"OrderingExpiredHeadReclaimedFirst", testOrderingExpiredHeadReclaimedFirst},
	{"ClaimCountsLostAttempts", testClaimCountsLostAttempts},
	{"LostHeadFreesItsKey", testLostHeadFreesItsKey},
	{"LostAllCountedByOneClaim", testLostAllCountedByOneClaim},
	{"ConcurrentClaimers", testConcurrentClaimers},
	{"ConcurrentClaimersWithLateEvents", testConcurrentClaimersWithLateEvents},
	{"IngestLeased", testIngestLeased},
	{"IngestLeasedHeldUntilItRunsOut", testIngestLeasedHeld},
	{"IngestLeasedOutcomeAfterLeaseEnd", testIngestLeasedOutcomeAfterLeaseEnd},
	{"IngestLeasedKeptByPrune", testIngestLeasedKeptByPrune},
	{"IngestLeasedPurged", testIngestLeasedPurged},
	{"IngestLeasedDoneWritten", testIngestLeasedDoneWritten},
	{"IngestLeasedReleased", testIngestLeasedReleased},
	{"IngestLeasedCounts", testIngestLeasedCounts},
	{"IngestLeasedShown", testIngestLeasedShown},
	{"IngestLeasedBackfilled", testIngestLeasedBackfilled},
	{"IngestLeasedReplayed", testIngestLeasedReplayed},
	{"IngestLeasedHoldsKey", testIngestLeasedHoldsKey},
	{"IngestRefusesBadLease", testIngestRefusesBadLease},
	{"IngestLeasedWakesNoOne", testIngestLeasedWakesNoOne},
	{"IsPaused", testIsPaused},

	{"ListNewestFirst", testListNewestFirst},
	{"ListPages", testListPages},
	{"ListPagesUnderInserts", testListPagesUnderInserts},
	{"ListFilters", testListFilters},
	{"ListStatusPages", testListStatusPages},
	{"ListTypeGlob", testListTypeGlob},
	{"BadFilter", testListBadFilter},
	{"WindowBoundaries", testWindowBoundaries},
	{"SearchIDPrefix", testSearchIDPrefix},
	{"SearchManyProviderIDs", testSearchManyProviderIDs},
	{"SearchText", testSearchText},
	{"ReplayRearms", testReplayRearms},
	{"ReplayDeliveryFilter", testReplayDeliveryFilter},
	{"ReplayNothing", testReplayNothing},
	{"ReplayProgress", testReplayProgress},
	{"BackfillCandidates", testBackfillCandidates},
	{"CreateDeliveriesOnce", testCreateDeliveries},
	{"RearmWakes", testRearmWakes},
	{"StatsEmpty", testStatsEmpty},
	{"StatsCounts", testStatsCounts},
	{"StatsExactThroughTransitions", testStatsExactThroughTransitions},
	{"StatsExactUnderConcurrency", testStatsExactUnderConcurrency},
	{"CountIngestAdds", testCountIngest},
	{"SlotUsage", testSlotUsage},
	{"RecentEventTimes", testRecentEventTimes},
	{"NoPendingMigrations", testNoPendingMigrations},
	{"PruneRetention", testPruneRetention},
	{"PruneBatches", testPruneBatches},
	{"PruneOneRuleOnly", testPruneOneRuleOnly},
	{"PruneRacesReplay", testPruneRacesReplay},
	{"PruneRacesBackfill", testPruneRacesBackfill},
	{"PruneReleasesSignatureDigest", testPruneReleasesSignatureDigest},

	{"Activity", testActivity},
	{"ActivityCounted", testActivityCounted},
	{"PauseHoldsClaims", testPauseHoldsClaims},
	{"HandlerRegistry", testHandlerRegistry},
	{"ConsoleSessionRoundTrip", testConsoleSessionRoundTrip},
	{"ConsoleSessionExpiry", testConsoleSessionExpiry},
	{"ConsoleSessionTrim", testConsoleSessionTrim},
	{"ResumeNotifies", testResumeNotifies},
	{"SkipDelivery", testSkipDelivery},
	{"AuditLog", testAuditLog},
	{"AttemptRounds", testAttemptRounds},
	{"FailuresGrouped", testFailuresGrouped},
	{"FailureKindsAsClassify", testFailureKindsAsClassify},
	{"FailuresThroughTransitions", testFailuresThroughTransitions},

	{"PurgeErasesPayload", testPurgeErasesPayload},
	{"PurgeOnce", testPurgeOnce},
	{"PurgedNeverRearmed", testPurgedNeverRearmed},
	{"PurgeAudit", testPurgeAudit},
	{"AuditKey", testAuditKey},
	{"PurgeRacesBackfill", testPurgeRacesBackfill},

	{"WithinCommitsTogether", testWithinCommitsTogether},
	{"WithinRollsBackTogether", testWithinRollsBackTogether},
	{"WithinPanicRollsBack", testWithinPanicRollsBack},
	{"WithinLeaseLost", testWithinLeaseLost},
	{"WithinRejectsFailedStatus", testWithinRejectsFailedStatus},
	{"WithinHoldsOffClaimers", testWithinHoldsOffClaimers},
	{"FleetNodes", testFleetNodes},
	{"Jobs", testJobs},
	{"JobTakeover", testJobTakeover},
	{"JobTakeoverOnce", testJobTakeoverOnce},
	{"JobTiedReplay", testJobTiedReplay},
	{"JobTiedReplayCancel", testJobTiedReplayCancel},
	{"JobTiedBackfill", testJobTiedBackfill},

	{"FleetLeaseElection", testFleetLeaseElection},
	{"FleetLeaseRunsOut", testFleetLeaseRunsOut},
	{"FleetLeaseReleaseHandsOver", testFleetLeaseReleaseHandsOver},
	{"FleetLeaseOneOfMany", testFleetLeaseOneOfMany},
	{"RejectionCountsAddUp", testRejectionCountsAddUp},
	{"AlertMarkOncePerQuiet", testAlertMarkOncePerQuiet},
}

// Run runs the conformance suite, each test in parallel on a store of its
// own from open.
func Run(t *testing.T, open OpenFunc) {
	RunOnly(t, open)
}

// RunOnly runs the tests of the conformance suite whose names begin with
// one of prefixes (every test when there is none), as Run does: for a
// layout of a driver's schema that changes how some of its statements
// run, the tests of those statements.
func RunOnly(t *testing.T, open OpenFunc, prefixes ...string) {
	chosen := func(name string) bool {
		return len(prefixes) == 0 || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) })
	}
	for _, tc := range tests {
		if !chosen(tc.name) {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
	for _, tc := range pairTests {
		if !chosen(tc.name) {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open)
		})
	}
}
