package relayproc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		exitFirst    bool   // Stop is called once the child has exited
		wantErr      string // empty: nil
	}{
		{"exits 0 on SIGTERM", "trap 'exit 0' TERM; echo trapped; sleep 30 >/dev/null 2>&1 & wait", false, ""},
		{"exits 3 on SIGTERM", "trap 'exit 3' TERM; echo trapped; sleep 30 >/dev/null 2>&1 & wait", false, "exited after SIGTERM: exit status 3"},
		{"ignores SIGTERM", "trap '' TERM; echo trapped; sleep 30 >/dev/null 2>&1", false, "still running 300ms after SIGTERM; killed"},
		{"exited 0 before", "exit 0", true, ""},
		{"exited 4 before", "exit 4", true, "exited early: exit status 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out Buffer
			p, err := Start(Options{Binary: "sh", Args: []string{"-c", tt.script}, Output: &out})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Kill)
			if tt.exitFirst {
				<-p.Done()
			} else {
				waitTrapped(t, &out)
			}
			err = p.Stop(300 * time.Millisecond)
			if got := errString(err); got != tt.wantErr {
				t.Errorf("Stop = %q, want %q", got, tt.wantErr)
			}
			if !p.Exited() {
				t.Error("still running after Stop")
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestStartRelayNotReady starts a "relay" that fails at once: the config
// is written with its database and listeners, and the error carries what
// the child printed.
func TestStartRelayNotReady(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := RelayOptions{
		Binary: "sh", Wrap: []string{"env"}, ConfigPath: filepath.Join(dir, "hookrelay.yaml"),
		Database: "sqlite:x.db", Config: "log:\n  level: warn\n", ReadyTimeout: 5 * time.Second,
	}
	_, err := StartRelay(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || !strings.Contains(err.Error(), "serve") {
		t.Fatalf("StartRelay = %v, want the child's exit and its output", err)
	}
	b, err := os.ReadFile(o.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	if !strings.HasPrefix(cfg, `database: "sqlite:x.db"`+"\nlisten: \"127.0.0.1:") || !strings.Contains(cfg, "admin_listen: \"127.0.0.1:") ||
		!strings.HasSuffix(cfg, "log:\n  level: warn\n") {
		t.Errorf("config file:\n%s", cfg)
	}
}
