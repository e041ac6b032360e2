package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

const (
	replayAdminToken   = "cli-replay-admin-token-0123456789"
	replayStripeSecret = "whsec_Y2xpLXJlcGxheS1zdHJpcGUtc2VjcmV0"
)

// TestReplayWarnsOfHandlerDeliveries runs `hookrelay replay` against an
// application that embeds hookrelay with a handler destination, orders,
// beside a pull destination: the dry run and the confirmation say how
// many of the deliveries are handler deliveries and that their effects
// apply again — and, confirmed, the handler does run again. It replaces
// the package's terminal, so it does not run in parallel.
func TestReplayWarnsOfHandlerDeliveries(t *testing.T) {
	saved := terminal
	t.Cleanup(func() { terminal = saved })
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			app := startHandlerApp(t, d)
			app.send(t, "evt_paid_1", "invoice.paid")
			app.send(t, "evt_paid_2", "invoice.paid")
			app.send(t, "evt_created", "customer.created")
			app.waitHandled(t, map[string]int{"evt_paid_1": 1, "evt_paid_2": 1})

			const warning = "2 of the 5 deliveries to re-arm are handler deliveries (orders): their handlers run again and their effects apply again."
			out, _ := app.replay(t, ExitOK, "--source", "stripe", "--dry-run")
			for _, want := range []string{"5 deliveries match: 5 would be re-armed, 0 in flight left alone\n", warning + "\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("replay --dry-run printed %q, want %q", out, want)
				}
			}
			out, _ = app.replay(t, ExitOK, "--source", "stripe", "--dry-run", "--json")
			if !strings.Contains(out, `"handler_deliveries": 2`) || !strings.Contains(out, `"warning": "`+warning+`"`) {
				t.Errorf("replay --dry-run --json printed %s, want the handler deliveries and the warning", out)
			}
			out, _ = app.replay(t, ExitOK, "--destination", "inbox", "--dry-run")
			if !strings.Contains(out, "3 deliveries match") || strings.Contains(out, "handler") {
				t.Errorf("replay of the pull destination alone printed %q, want its count and no warning", out)
			}

			// Asked on a terminal, "no" changes nothing.
			terminal = func() (io.Reader, bool) { return strings.NewReader("n\n"), true }
			out, errOut := app.replay(t, ExitFailure, "--source", "stripe", "--type", "invoice.*", "--destination", "orders")
			if want := "All 2 deliveries to re-arm are handler deliveries (orders): their handlers run again and their effects apply again.\n"; !strings.Contains(out, want) ||
				!strings.Contains(errOut, "Re-arm 2 deliveries? [y/N]") {
				t.Errorf("replay asked:\n%s%s\nwant the warning %q before the question", out, errOut, want)
			}

			// "yes" re-arms them, and the handler runs again on each.
			terminal = func() (io.Reader, bool) { return strings.NewReader("y\n"), true }
			out, _ = app.replay(t, ExitOK, "--source", "stripe")
			if !strings.Contains(out, warning) || !strings.Contains(out, "re-armed 5 deliveries") {
				t.Errorf("replay printed %q, want the warning and 5 re-armed", out)
			}
			app.waitHandled(t, map[string]int{"evt_paid_1": 2, "evt_paid_2": 2})
		})
	}
}

// handlerApp is an application that embeds hookrelay: a stripe source, a
// handler destination orders of invoice.paid events that counts its
// calls, and a pull destination inbox of every stripe event, which
// nothing claims.
type handlerApp struct {
	ingest, admin string
	config        string // the hookrelay YAML file
	mu            sync.Mutex
	calls         map[string]int // guarded by mu; by provider event id
	relay         *hookrelay.Relay
}

func startHandlerApp(t *testing.T, d testdb.Driver) *handlerApp {
	t.Helper()
	file := filepath.Join(t.TempDir(), "hookrelay.yaml")
	yaml := fmt.Sprintf(`tokens:
  - {name: ops, role: admin, secret: %q}
sources:
  - {name: stripe, verify: stripe, secrets: [%q]}
destinations:
  - {name: inbox, pull: true, secret: %q, sources: [stripe]}
`, replayAdminToken, replayStripeSecret, replayStripeSecret)
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := hookrelay.New(hookrelay.Config{Database: d.URL(t), File: file})
	if err != nil {
		t.Fatal(err)
	}
	app := &handlerApp{config: file, calls: map[string]int{}, relay: r}
	r.Handle(hookrelay.Destination{Name: "orders", Sources: []string{"stripe"}, Types: []string{"invoice.paid"}},
		func(_ context.Context, _ hookrelay.Tx, ev hookrelay.Event) error {
			app.mu.Lock()
			defer app.mu.Unlock()
			app.calls[ev.ProviderEventID]++
			return nil
		})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ingest, admin := httptest.NewServer(r.Receiver()), httptest.NewServer(r.Admin())
	t.Cleanup(func() {
		ingest.Close()
		admin.Close()
		_ = r.Close()
	})
	app.ingest, app.admin = ingest.URL, admin.URL
	return app
}

// send posts a Stripe event of type typ with `hookrelay send`, which
// signs it as Stripe does with the source's secret from the config.
func (a *handlerApp) send(t *testing.T, id, typ string) {
	t.Helper()
	body := filepath.Join(t.TempDir(), id+".json")
	if err := os.WriteFile(body, fmt.Appendf(nil, `{"id":%q,"object":"event","type":%q,"data":{"object":{"id":"in_%s"}}}`, id, typ, id), 0o600); err != nil {
		t.Fatal(err)
	}
	a.cli(t, ExitOK, "send", "--config", a.config, "--url", a.ingest, "--source", "stripe", "--file", body)
}

// waitHandled waits until the handler has been called want times for
// each event, and no orders delivery is in flight any more: a call
// returns before the transaction that marks its delivery done commits.
func (a *handlerApp) waitHandled(t *testing.T, want map[string]int) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("handler calls %v, their deliveries done", want), func() error {
		a.mu.Lock()
		defer a.mu.Unlock()
		for id, n := range want {
			if a.calls[id] != n {
				return fmt.Errorf("calls %v", a.calls)
			}
		}
		st, err := a.relay.Stats(context.Background())
		if err != nil {
			return err
		}
		if d := st.Destinations["orders"]; d.Processing+d.Pending+d.Failed > 0 {
			return fmt.Errorf("orders deliveries not done: %+v", d)
		}
		return nil
	})
}

// replay runs `hookrelay replay` with args against the application's
// admin API, as cli does.
func (a *handlerApp) replay(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	return a.cli(t, want, append([]string{"replay", "--server", a.admin, "--token", replayAdminToken}, args...)...)
}

// cli runs the command line and returns what it printed on stdout and
// stderr; its exit code must be want.
func (a *handlerApp) cli(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	if code := Main(context.Background(), env, args); code != want {
		t.Fatalf("hookrelay %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out.String(), errOut.String())
	}
	return out.String(), errOut.String()
}
