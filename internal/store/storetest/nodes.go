package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testFleetNodes records nodes, reads those seen lately, replaces a
// node's report with its next, and forgets the nodes gone quiet.
func testFleetNodes(t *testing.T, s store.DB) {
	ctx := context.Background()
	started := baseTime.Add(-time.Hour)
	for i, id := range []string{"b-node", "a-node"} {
		n := store.Node{ID: id, Version: "v1", ConfigFingerprint: "fp1", StartedAt: started, SeenAt: baseTime.Add(time.Duration(i) * time.Second)}
		if err := s.RecordNode(ctx, n); err != nil {
			t.Fatalf("RecordNode: %v", err)
		}
	}
	if err := s.RecordNode(ctx, store.Node{ID: "old-node", Version: "v0", ConfigFingerprint: "fp0", StartedAt: started, SeenAt: baseTime.Add(-10 * time.Minute)}); err != nil {
		t.Fatalf("RecordNode: %v", err)
	}
	// b-node reloads: a new fingerprint, seen later.
	if err := s.RecordNode(ctx, store.Node{ID: "b-node", Version: "v1", ConfigFingerprint: "fp2", StartedAt: started, SeenAt: baseTime.Add(5 * time.Second)}); err != nil {
		t.Fatalf("RecordNode again: %v", err)
	}
	nodes, err := s.Nodes(ctx, baseTime.Add(-time.Minute), baseTime.Add(-time.Hour))
	if err != nil {
		t.Fatalf("Nodes: %v", err)
	}
	if len(nodes) != 2 || nodes[0].ID != "a-node" || nodes[1].ID != "b-node" || nodes[1].ConfigFingerprint != "fp2" {
		t.Fatalf("Nodes = %+v, want a-node and b-node (fp2), the old one not seen lately", nodes)
	}
	checkTime(t, "StartedAt", nodes[1].StartedAt, stored(started))
	checkTime(t, "SeenAt", nodes[1].SeenAt, stored(baseTime.Add(5*time.Second)))
	// Forgetting the nodes quiet for five minutes drops old-node.
	if _, err := s.Nodes(ctx, baseTime, baseTime.Add(-5*time.Minute)); err != nil {
		t.Fatalf("Nodes forgetting: %v", err)
	}
	all, err := s.Nodes(ctx, time.Time{}, time.Time{})
	if err != nil || len(all) != 2 {
		t.Errorf("nodes after forgetting = %+v, %v; want the two seen lately", all, err)
	}
}
