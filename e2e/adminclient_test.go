package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
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
