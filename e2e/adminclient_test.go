package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// apiOf returns the admin API client of p's admin listener with token.
func apiOf(p *relayProc, token string) *adminclient.Client {
	return adminclient.New("http://"+p.admin, token)
}

// destStats is one destination's delivery counts, by status, as
// GET /api/v1/stats reports them.
type destStats map[string]float64

// adminStats reads GET /api/v1/stats from p's admin listener with token.
func adminStats(t *testing.T, p *relayProc, token string) map[string]destStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, data, err := apiOf(p, token).Stats(ctx)
	if err != nil {
		t.Fatalf("get stats: %v", err)
	}
	var s struct {
		Destinations map[string]destStats `json:"destinations"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("decode stats: %v", err)
	}
	return s.Destinations
}

// waitSettled waits until none of dest's deliveries is pending, processing
// or failed: nothing more will be delivered to it, so what it has received
// is all it will receive.
func waitSettled(t *testing.T, p *relayProc, token, dest string) {
	t.Helper()
	testkit.Eventually(t, 30*time.Second, "every delivery to "+dest+" settled", func() error {
		s := adminStats(t, p, token)[dest]
		return testkit.Check(s["pending"]+s["processing"]+s["failed"] == 0, "%s: %v", dest, s)
	})
}
