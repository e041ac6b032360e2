package reliability

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestReloadReachesTheFleet runs two relays on one PostgreSQL database,
// each with its own config file, as a fleet does. Either lists both nodes
// (GET /api/v1/nodes). A token added to one node's file and reloaded through
// that node's API reaches the other node's reload too, which re-reads its
// own file: while the files differ the fleet shows its configurations
// disagree; once both files have the token, a reload through one node
// makes the token open the other's API.
func TestReloadReachesTheFleet(t *testing.T) {
	t.Parallel()
	db := testdb.PostgresDatabaseURL(t)
	addrs := freeAddrs(t, 4)
	dir := t.TempDir()
	type node struct{ path, public, admin string }
	nodes := []node{
		{filepath.Join(dir, "a.yaml"), addrs[0], addrs[1]},
		{filepath.Join(dir, "b.yaml"), addrs[2], addrs[3]},
	}
	write := func(n node, tokens ...string) {
		t.Helper()
		var b strings.Builder
		fmt.Fprintf(&b, "database: %q\nlisten: %q\nadmin_listen: %q\nlog: {level: warn}\n", db, n.public, n.admin)
		b.WriteString("sources:\n  - {name: stripe, verify: stripe, secrets: [\"${REL_STRIPE_SECRET}\"]}\ntokens:\n")
		for _, tok := range tokens {
			fmt.Fprintf(&b, "  - {name: %s, role: admin, secret: %q}\n", tok, fleetToken(tok))
		}
		if err := os.WriteFile(n.path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range nodes {
		write(n, "ops")
		launch(t, relayproc.RelayOptions{
			Binary: binary, ConfigPath: n.path, Admin: n.admin, Env: relayEnv, ReadyTimeout: 30 * time.Second,
		})
	}
	a, b := nodes[0], nodes[1]

	testkit.Eventually(t, 20*time.Second, "both nodes listed, one configuration", func() error {
		s, err := fleetStats(a.admin, "ops")
		if err != nil {
			return err
		}
		return testkit.Check(len(s.Nodes) == 2 && !s.ConfigDrift, "%d nodes, drift %v", len(s.Nodes), s.ConfigDrift)
	})

	// b's file gains a token, and b reloads: a reloads too, from its own
	// file, still without it. The fleet shows the disagreement.
	write(b, "ops", "oncall")
	fleetReload(t, b.admin, "ops")
	testkit.Eventually(t, 20*time.Second, "the disagreement shown through a", func() error {
		s, err := fleetStats(a.admin, "ops")
		if err != nil {
			return err
		}
		return testkit.Check(s.ConfigDrift, "no drift: %+v", s.Nodes)
	})
	testkit.Eventually(t, 20*time.Second, "a's metric of configurations at 2", func() error {
		resp, err := http.Get("http://" + a.admin + "/metrics")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		return testkit.Check(strings.Contains(string(body), "\nhookrelay_fleet_config_fingerprints 2\n"), "metric not at 2")
	})
	if code, err := fleetGet(a.admin, "oncall"); err != nil || code != http.StatusUnauthorized {
		t.Fatalf("a's API with the token its file lacks: %d, %v; want 401", code, err)
	}

	// a's file gets the token too; a reload through b reaches a.
	write(a, "ops", "oncall")
	fleetReload(t, b.admin, "ops")
	testkit.Eventually(t, 20*time.Second, "the token b's reload brought opening a's API", func() error {
		code, err := fleetGet(a.admin, "oncall")
		if err != nil {
			return err
		}
		return testkit.Check(code == http.StatusOK, "status %d", code)
	})
	testkit.Eventually(t, 20*time.Second, "one configuration again", func() error {
		s, err := fleetStats(b.admin, "oncall")
		if err != nil {
			return err
		}
		return testkit.Check(len(s.Nodes) == 2 && !s.ConfigDrift, "%d nodes, drift %v", len(s.Nodes), s.ConfigDrift)
	})
}

// fleetToken is the secret of the test's token name.
func fleetToken(name string) string { return "tok_fleet_" + name + "_0123456789abcdef" }

// fleetGet asks admin's stats with token's secret and returns the status.
func fleetGet(admin, token string) (int, error) {
	return adminJSON(admin, fleetToken(token), http.MethodGet, "/api/v1/stats", nil, nil)
}

// fleetStats returns the nodes admin lists.
func fleetStats(admin, token string) (adminwire.Nodes, error) {
	var s adminwire.Nodes
	code, err := adminJSON(admin, fleetToken(token), http.MethodGet, "/api/v1/nodes", nil, &s)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("nodes: status %d", code)
	}
	return s, err
}

// fleetReload reloads admin's config through its API.
func fleetReload(t *testing.T, admin, token string) {
	t.Helper()
	code, err := adminJSON(admin, fleetToken(token), http.MethodPost, "/api/v1/reload", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if code != http.StatusOK {
		t.Fatalf("reload through %s: %d", admin, code)
	}
}
