package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// claimLease claims the lease name for holder and returns it as it stands.
func claimLease(t *testing.T, s store.FleetLeases, name, holder string, ttl time.Duration) store.FleetLease {
	t.Helper()
	l, err := s.ClaimFleetLease(context.Background(), name, holder, ttl)
	if err != nil {
		t.Fatalf("ClaimFleetLease(%s, %s): %v", name, holder, err)
	}
	if l.Name != name || l.Now.IsZero() {
		t.Fatalf("ClaimFleetLease(%s, %s) = %+v: want the lease named, read at the database's time", name, holder, l)
	}
	return l
}

// testFleetLeaseElection has two claimants claim one lease: the first takes
// it, the second finds it held, and the first's claims renew it, keeping
// when it was taken and pushing when it runs out.
func testFleetLeaseElection(t *testing.T, s store.DB) {
	ctx := context.Background()
	if _, err := s.ReadFleetLease(ctx, "runner"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ReadFleetLease of a lease never claimed: %v, want ErrNotFound", err)
	}
	a := claimLease(t, s, "runner", "node-a", time.Hour)
	if !a.HeldBy("node-a") || a.Holder != "node-a" {
		t.Fatalf("first claim = %+v, want it held by node-a", a)
	}
	if d := a.Until.Sub(a.Now); d != time.Hour {
		t.Errorf("lease runs out %v after its claim, want 1h", d)
	}
	b := claimLease(t, s, "runner", "node-b", time.Hour)
	if b.HeldBy("node-b") || b.Holder != "node-a" || !b.Until.Equal(a.Until) {
		t.Fatalf("second claimant's claim = %+v, want it left to node-a as it was (%+v)", b, a)
	}
	other := claimLease(t, s, "other", "node-b", time.Hour)
	if !other.HeldBy("node-b") {
		t.Errorf("a lease of another name = %+v, want node-b's", other)
	}
	renewed := claimLease(t, s, "runner", "node-a", 2*time.Hour)
	if !renewed.HeldBy("node-a") || !renewed.Since.Equal(a.Since) || !renewed.Until.After(a.Until) {
		t.Errorf("renewal = %+v, want node-a's, taken at %v, running out after %v", renewed, a.Since, a.Until)
	}
	read, err := s.ReadFleetLease(ctx, "runner")
	if err != nil {
		t.Fatalf("ReadFleetLease: %v", err)
	}
	if !read.HeldBy("node-a") || !read.Until.Equal(renewed.Until) || !read.Since.Equal(a.Since) {
		t.Errorf("ReadFleetLease = %+v, want the renewed lease %+v", read, renewed)
	}
}

// testFleetLeaseRunsOut lets a lease run out, its holder gone: the other
// claimant takes it, and the old holder's next claim finds it held.
func testFleetLeaseRunsOut(t *testing.T, s store.DB) {
	ctx := context.Background()
	a := claimLease(t, s, "runner", "node-a", 50*time.Millisecond)
	if !a.HeldBy("node-a") {
		t.Fatalf("claim = %+v, want node-a's", a)
	}
	var b store.FleetLease
	testkit.Eventually(t, 10*time.Second, "node-b to take the lease node-a let run out", func() error {
		var err error
		if b, err = s.ClaimFleetLease(ctx, "runner", "node-b", time.Hour); err != nil {
			return err
		}
		return testkit.Check(b.HeldBy("node-b"), "held by %s until %v (now %v)", b.Holder, b.Until, b.Now)
	})
	if !b.Now.After(a.Until) && !b.Now.Equal(a.Until) {
		t.Errorf("node-b took the lease at %v, before it ran out at %v", b.Now, a.Until)
	}
	if !b.Since.Equal(b.Now) {
		t.Errorf("node-b's lease taken at %v, want its claim's time %v", b.Since, b.Now)
	}
	if late := claimLease(t, s, "runner", "node-a", time.Hour); late.HeldBy("node-a") || late.Holder != "node-b" {
		t.Errorf("node-a's claim after the handover = %+v, want node-b's lease", late)
	}
}

// testFleetLeaseReleaseHandsOver releases a lease: only its holder can,
// and the other claimant takes it at once, long before it would have run
// out.
func testFleetLeaseReleaseHandsOver(t *testing.T, s store.DB) {
	ctx := context.Background()
	claimLease(t, s, "runner", "node-a", time.Hour)
	if err := s.ReleaseFleetLease(ctx, "runner", "node-b"); err != nil {
		t.Fatalf("ReleaseFleetLease by another: %v", err)
	}
	if l := claimLease(t, s, "runner", "node-b", time.Hour); l.Holder != "node-a" {
		t.Fatalf("after a release by another, the lease = %+v, want node-a's still", l)
	}
	if err := s.ReleaseFleetLease(ctx, "runner", "node-a"); err != nil {
		t.Fatalf("ReleaseFleetLease: %v", err)
	}
	if _, err := s.ReadFleetLease(ctx, "runner"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ReadFleetLease of a released lease: %v, want ErrNotFound", err)
	}
	if l := claimLease(t, s, "runner", "node-b", time.Hour); !l.HeldBy("node-b") {
		t.Errorf("claim after the release = %+v, want node-b's at once", l)
	}
	if err := s.ReleaseFleetLease(ctx, "never-claimed", "node-a"); err != nil {
		t.Errorf("ReleaseFleetLease of a lease never claimed: %v", err)
	}
}

// testFleetLeaseOneOfMany has eight claimants claim one free lease at
// once: exactly one takes it, and every other finds it held by that one.
func testFleetLeaseOneOfMany(t *testing.T, s store.DB) {
	const claimants = 8
	got := make([]store.FleetLease, claimants)
	var wg sync.WaitGroup
	for i := range claimants {
		wg.Go(func() {
			l, err := s.ClaimFleetLease(context.Background(), "runner", fmt.Sprintf("node-%d", i), time.Hour)
			if err != nil {
				t.Errorf("ClaimFleetLease: %v", err)
			}
			got[i] = l
		})
	}
	wg.Wait()
	var winners []string
	for i, l := range got {
		if l.HeldBy(fmt.Sprintf("node-%d", i)) {
			winners = append(winners, l.Holder)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("claimants holding the lease: %v, want exactly one", winners)
	}
	for i, l := range got {
		if l.Holder != winners[0] {
			t.Errorf("claimant %d found the lease held by %q, want %q", i, l.Holder, winners[0])
		}
	}
}

// testRejectionCountsAddUp adds the counts of two processes into shared
// intervals, sums those from a time, and drops those before one.
func testRejectionCountsAddUp(t *testing.T, s store.DB) {
	ctx := context.Background()
	t0 := baseTime.Truncate(time.Second)
	count := func(cs ...store.RejectionCount) {
		t.Helper()
		if err := s.CountRejections(ctx, cs); err != nil {
			t.Fatalf("CountRejections: %v", err)
		}
	}
	count() // nothing to add
	// Two processes' flushes, into the same intervals.
	count(store.RejectionCount{Source: "stripe", Reason: "signature_mismatch", At: t0, N: 3},
		store.RejectionCount{Source: "stripe", Reason: "signature_missing", At: t0.Add(time.Second), N: 1},
		store.RejectionCount{Source: "github", Reason: "signature_mismatch", At: t0.Add(-time.Minute), N: 7})
	count(store.RejectionCount{Source: "stripe", Reason: "signature_mismatch", At: t0, N: 2},
		store.RejectionCount{Source: "stripe", Reason: "signature_mismatch", At: t0.Add(2 * time.Second), N: 4})

	got, err := s.RejectionsSince(ctx, t0)
	if err != nil {
		t.Fatalf("RejectionsSince: %v", err)
	}
	want := []store.RejectionCount{
		{Source: "stripe", Reason: "signature_mismatch", At: t0, N: 9},
		{Source: "stripe", Reason: "signature_missing", At: t0.Add(time.Second), N: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RejectionsSince(t0) =\n%+v\nwant\n%+v (github's interval is before t0)", got, want)
	}
	if got, err = s.RejectionsSince(ctx, t0.Add(-time.Hour)); err != nil || len(got) != 3 || got[0].Source != "github" || got[0].N != 7 {
		t.Errorf("RejectionsSince(t0-1h) = %+v, %v: want github's 7 first, then stripe's two reasons", got, err)
	}
	n, err := s.DropRejectionCounts(ctx, t0.Add(time.Second))
	if err != nil || n != 2 {
		t.Fatalf("DropRejectionCounts = %d, %v: want the 2 intervals before t0+1s", n, err)
	}
	if got, err = s.RejectionsSince(ctx, t0.Add(-time.Hour)); err != nil || len(got) != 2 || got[0].N != 4 || got[1].N != 1 {
		t.Errorf("after the drop, RejectionsSince = %+v, %v: want stripe's 4 and 1 left", got, err)
	}
}

// testAlertMarkOncePerQuiet marks an alert: once within its quiet time,
// again after it, each subject on its own, and once of many marks at once.
func testAlertMarkOncePerQuiet(t *testing.T, s store.DB) {
	ctx := context.Background()
	t0 := baseTime
	mark := func(subject string, at time.Time) bool {
		t.Helper()
		ok, err := s.MarkAlert(ctx, "signature_failures", subject, at, time.Minute)
		if err != nil {
			t.Fatalf("MarkAlert: %v", err)
		}
		return ok
	}
	if !mark("stripe", t0) {
		t.Fatal("first mark refused")
	}
	if mark("stripe", t0.Add(30*time.Second)) {
		t.Error("a mark within the quiet time recorded")
	}
	if !mark("github", t0.Add(30*time.Second)) {
		t.Error("another subject's first mark refused")
	}
	if mark("stripe", t0.Add(59*time.Second)) {
		t.Error("a mark within the quiet time, after a refused one, recorded")
	}
	if !mark("stripe", t0.Add(time.Minute)) {
		t.Error("a mark once the quiet time has passed refused")
	}
	if ok, err := s.MarkAlert(ctx, "other_rule", "stripe", t0.Add(time.Minute), time.Minute); err != nil || !ok {
		t.Errorf("another rule's mark = %v, %v: want recorded", ok, err)
	}

	const markers = 8
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		recorded int
	)
	at := t0.Add(time.Hour)
	for range markers {
		wg.Go(func() {
			ok, err := s.MarkAlert(ctx, "signature_failures", "shop", at, time.Minute)
			if err != nil {
				t.Errorf("MarkAlert: %v", err)
			}
			if ok {
				mu.Lock()
				recorded++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if recorded != 1 {
		t.Errorf("%d of %d marks at once recorded, want 1", recorded, markers)
	}
}
