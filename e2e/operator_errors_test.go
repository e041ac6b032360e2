package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestHelp: help goes to stdout, `hookrelay help VERB` works, every verb's
// help has a description and an example, and a flag error is said once.
func TestHelp(t *testing.T) {
	t.Parallel()
	r := wantRun(t, nil, 0, "help")
	contains(t, "help", r.stdout, "Commands:", "serve", "replay", "hookrelay help COMMAND")
	for _, verb := range [][]string{
		{"serve"}, {"migrate"}, {"check-config"}, {"send"}, {"events", "list"}, {"events", "show"}, {"events", "tail"},
		{"events", "raw"}, {"replay"}, {"backfill"}, {"verify"}, {"stats"}, {"listen"}, {"version"},
		{"rejections"}, {"audit"}, {"destinations", "list"}, {"destinations", "pause"}, {"destinations", "resume"}, {"destinations", "skip"},
		{"jobs"}, {"jobs", "list"}, {"jobs", "cancel"}, {"failures"},
	} {
		r := wantRun(t, nil, 0, append([]string{"help"}, verb...)...)
		contains(t, fmt.Sprint(verb, " help"), r.stdout, "Usage: hookrelay "+strings.Join(verb, " "), "Example:\n  hookrelay "+verb[0])
		if r.stderr != "" {
			t.Errorf("%v help wrote to stderr: %q", verb, r.stderr)
		}
		if r2 := wantRun(t, nil, 0, append(verb, "-h")...); r2.stdout != r.stdout {
			t.Errorf("%v -h differs from help %v", verb, verb)
		}
	}
	r = wantRun(t, nil, 0, "help", "events")
	contains(t, "help events", r.stdout, "list", "show", "tail", "raw", "Example:")

	r = wantRun(t, nil, 2, "events", "list", "--bogus")
	if n := strings.Count(r.stderr, "flag provided but not defined: -bogus"); n != 1 {
		t.Errorf("the flag error is said %d times:\n%s", n, r.stderr)
	}
	contains(t, "flag error", r.stderr, "hookrelay help events")
}

// TestMistakesCaughtBeforeActing: what cannot be right exits 2 with what to
// change, before any call to the relay.
func TestMistakesCaughtBeforeActing(t *testing.T) {
	t.Parallel()
	nowhere := []string{"HOOKRELAY_SERVER=http://" + freeAddr(t), "HOOKRELAY_TOKEN=x"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--source", "stripe", "--since", "2026-12-02", "--until", "2026-12-01", "--yes"}, "is not before --until"},
		{[]string{"backfill", "--destination", "dev", "--since", "now", "--until", "-1d", "--yes"}, "is not before --until"},
		{[]string{"events", "list", "--limit", "0"}, "--limit 0: want 1 to 1000"},
		{[]string{"events", "list", "--since", "yesterday"}, "want now, a date (2026-12-01"},
		{[]string{"backfill", "--until", "now"}, "--destination and --since are required"},
		{[]string{"serve", "--admin-listen", "8091"}, "--admin-listen \"8091\": want HOST:PORT"},
	} {
		r := wantRun(t, nowhere, 2, tc.args...)
		contains(t, fmt.Sprint(tc.args), r.stderr, tc.want)
	}
}

// TestTimesAccepted: now, dates and weeks are times; backfill's --until
// defaults to now.
func TestTimesAccepted(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), adminConfig, adminEnv)
			postSigned(t, p, []byte(`{"id":"evt_times","type":"invoice.paid","created":1}`))
			admin := cliEnv(p, e2eAdminToken)
			r := wantRun(t, admin, 0, "events", "list", "--since", "-2w", "--until", "now")
			contains(t, "events list -2w..now", r.stdout, "evt_times")
			r = wantRun(t, admin, 0, "events", "list", "--since", time.Now().UTC().Add(24*time.Hour).Format(time.DateOnly))
			contains(t, "events list from tomorrow", r.stderr, "no events match")
			r = wantRun(t, admin, 0, "backfill", "--destination", "dev", "--since", "-1w", "--dry-run")
			contains(t, "backfill without --until", r.stdout, "0 events of the window would get a delivery to dev")
		})
	}
}

// TestReplayRefusesWhatCannotMatch: a typo in a name or an id is refused
// with exit 2 and named, instead of matching nothing.
func TestReplayRefusesWhatCannotMatch(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), adminConfig, adminEnv)
			postSigned(t, p, []byte(`{"id":"evt_typo","type":"invoice.paid","created":1}`))
			admin := cliEnv(p, e2eAdminToken)
			id := strings.TrimSpace(wantRun(t, admin, 0, "events", "list", "--ids").stdout)
			for _, tc := range []struct {
				args []string
				want string
			}{
				{[]string{"replay", "--source", "strpe", "--yes"}, `no source "strpe" in the config (did you mean "stripe"?); it has stripe`},
				{[]string{"replay", "--destination", "devv", "--status", "dead", "--yes"}, `no destination "devv" in the config (did you mean "dev"?)`},
				{[]string{"replay", "--id", id, "--id", "01NOSUCHEVENT", "--yes"}, "no event 01NOSUCHEVENT: nothing was replayed"},
				{[]string{"backfill", "--destination", "devv", "--since", "-1d", "--yes"}, `no destination "devv"`},
			} {
				r := wantRun(t, admin, 2, tc.args...)
				contains(t, fmt.Sprint(tc.args), r.stderr, tc.want)
			}
			r := wantRun(t, admin, 0, "replay", "--id", id, "--yes")
			contains(t, "replay of an existing id", r.stdout, "re-armed 1 delivery")
		})
	}
}

// TestMigrateSaysWhatItDid: the first migrate names what it applied, the
// second says the database is up to date.
func TestMigrateSaysWhatItDid(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			path := writeConfig(t, driver.URL(t), "127.0.0.1:0", "127.0.0.1:0", "")
			r := wantRun(t, nil, 0, "migrate", "--config", path)
			contains(t, "first migrate", r.stdout, "applied ", "0001_init.sql")
			r = wantRun(t, nil, 0, "migrate", "--config", path)
			contains(t, "second migrate", r.stdout, "database up to date: nothing to apply")
		})
	}
}

func TestVersionPrintsTheCommit(t *testing.T) {
	t.Parallel()
	r := wantRun(t, nil, 0, "version")
	// The test binary is built without version control information.
	contains(t, "version", r.stdout, "hookrelay dev commit unknown", "make build")
}

// TestSQLiteOpenErrorsNameThePath: one sentence with the path, the cause
// and what to change.
func TestSQLiteOpenErrorsNameThePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		db, want string
	}{
		{"sqlite:" + filepath.Join(dir, "missing", "x.db"), "the directory " + filepath.Join(dir, "missing") + " does not exist: change database in the config, or create it (mkdir -p"},
		{"sqlite:" + dir, "that is a directory, not a database file: change database in the config"},
		{"sqlite:" + filepath.Join(file, "x.db"), file + " is not a directory"},
	} {
		path := writeConfig(t, tc.db, "127.0.0.1:0", "127.0.0.1:0", "")
		for _, cmd := range []string{"migrate", "serve"} {
			r := wantRun(t, nil, 1, cmd, "--config", path)
			contains(t, cmd+" "+tc.db, r.stderr, tc.want)
			if strings.Contains(r.stderr, "store: unavailable") || strings.Count(r.stderr, "sqlite:") != 1 {
				t.Errorf("%s %s: the cause is not said once:\n%s", cmd, tc.db, r.stderr)
			}
		}
	}
}

// TestBusyAdminListenNamesTheKey: a port in use is reported as the key
// that names it, without a shutting-down line before it.
func TestBusyAdminListenNamesTheKey(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	path := writeConfig(t, "sqlite:"+filepath.Join(t.TempDir(), "x.db"), freeAddr(t), ln.Addr().String(), "")
	r := wantRun(t, nil, 1, "serve", "--config", path)
	contains(t, "serve on a busy admin port", r.stderr, "admin_listen "+ln.Addr().String()+": the address is already in use", "--admin-listen")
	if strings.Contains(r.stderr, "shutting down") || strings.Contains(r.stderr, "hookrelay serve: listen ") {
		t.Errorf("serve on a busy admin port:\n%s", r.stderr)
	}
}

// TestServerThatIsNotARelay: an HTML page or another service's JSON is
// reported as such, and listen stops instead of retrying.
func TestServerThatIsNotARelay(t *testing.T) {
	t.Parallel()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body>Welcome</body></html>")
	}))
	defer html.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"ok","deliveries":[]}`)
	}))
	defer other.Close()
	for _, tc := range []struct {
		url, want string
	}{
		{html.URL, "a text/html; charset=utf-8 answer"},
		{other.URL, "JSON without the Hookrelay-Api header"},
	} {
		env := []string{"HOOKRELAY_SERVER=" + tc.url, "HOOKRELAY_TOKEN=x"}
		for _, args := range [][]string{{"events", "list"}, {"stats"}, {"listen", "--destination", "dev", "--print-json", "--wait", "1s"}} {
			b := startBg(t, env, args...)
			if code := b.wait(t, 20*time.Second); code != 1 {
				t.Errorf("%v against %s: exit %d, want 1", args, tc.url, code)
			}
			contains(t, fmt.Sprint(args), b.stderr.String(), "not a hookrelay admin listener", tc.want, "admin_listen")
		}
	}
}

// TestEmptyVariableIsNamed: a non-secret key whose variable is empty says
// which variable.
func TestEmptyVariableIsNamed(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.yaml")
	if err := os.WriteFile(path, []byte("database: ${DATABASE_URL}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := wantRun(t, []string{"DATABASE_URL="}, 1, "check-config", "--config", path)
	contains(t, "check-config", r.stderr, "database: ${DATABASE_URL} is empty: set DATABASE_URL")
}
