package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// TestFirstUseDoesNotDeadlock races the first ingests, claims and rejection
// records of fresh stores: each prepares statements on the writer's only
// connection, and none may wait on another that holds it.
func TestFirstUseDoesNotDeadlock(t *testing.T) {
	t.Parallel()
	for round := range 10 {
		s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var wg sync.WaitGroup
		for g := range 3 {
			wg.Go(func() {
				item := storetest.Item("stripe", fmt.Sprintf("evt_%d_%d", round, g), []byte(`{}`))
				if _, err := s.Ingest(ctx, []store.IngestItem{item}); err != nil {
					t.Errorf("round %d: Ingest: %v", round, err)
				}
			})
		}
		wg.Go(func() {
			if _, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 5, Lease: time.Minute, Now: time.Now()}); err != nil {
				t.Errorf("round %d: ClaimDeliveries: %v", round, err)
			}
		})
		wg.Go(func() {
			if err := s.RecordRejections(ctx, []store.Rejection{{At: time.Now(), Source: "stripe", Reason: "signature_mismatch"}}); err != nil {
				t.Errorf("round %d: RecordRejections: %v", round, err)
			}
		})
		wg.Wait()
		cancel()
	}
}
