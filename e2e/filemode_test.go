package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
)

// umaskZero runs the binary with a umask that takes nothing away: a file
// made with the default mode would be readable and writable by everyone.
var umaskZero = []string{"sh", "-c", `umask 0000 && exec "$@"`, "sh"}

// wantPrivate fails unless every file of paths has mode 0600.
func wantPrivate(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Errorf("stat %s: %v", p, err)
			continue
		}
		if mode := st.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %04o under umask 0000, want 0600", p, mode)
		}
	}
}

// TestFilesPrivateUnderOpenUmask runs migrate and serve under umask 0000
// and checks that the SQLite database, its WAL and shared-memory files and
// the one-run admin token file are readable by their owner only; then that
// a database file opened wider is warned about, by path and mode, at start.
func TestFilesPrivateUnderOpenUmask(t *testing.T) {
	t.Parallel()

	// migrate alone.
	migrated := filepath.Join(t.TempDir(), "migrated.db")
	cfg := writeConfig(t, "sqlite:"+migrated, freeAddr(t), freeAddr(t), stripeSource)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, umaskZero[0], append(append(umaskZero[1:], binary), "migrate", "--config", cfg)...)
	cmd.Env = append(os.Environ(), stripeEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("migrate under umask 0000: %v\n%s", err, out)
	}
	wantPrivate(t, migrated)

	// serve, with no admin token configured: it writes the generated token
	// beside the database.
	db := filepath.Join(t.TempDir(), "hookrelay.db")
	p := launchWrapped(t, "relay under umask 0000", umaskZero, "sqlite:"+db, stripeSource, stripeEnv)
	postSigned(t, p, []byte(`{"id":"evt_mode","type":"invoice.paid","created":1}`))
	token := filepath.Join(filepath.Dir(db), "hookrelay.admin-token")
	wantPrivate(t, db, db+"-wal", db+"-shm", token)
	if code := p.stop(t); code != 0 {
		t.Fatalf("relay exited %d", code)
	}
	if logs := p.logs.String(); strings.Contains(logs, "open to other users") {
		t.Errorf("private files were warned about:\n%s", logs)
	}

	// A database someone opened to others is warned about at start.
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	p = launchRelay(t, "relay on a wide database", "sqlite:"+db, stripeSource, stripeEnv)
	want := `"msg":"database file is open to other users","component":"store.sqlite","path":"` + db + `","mode":"0644","want":"0600","fix":"chmod 600 ` + db + `"`
	testkit.Eventually(t, 20*time.Second, "the warning in the relay's log", func() error {
		return testkit.Check(strings.Contains(p.logs.String(), want), "log:\n%s", p.logs.String())
	})
	p.stop(t)
}
