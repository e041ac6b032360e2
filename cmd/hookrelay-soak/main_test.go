package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

func TestRunUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    int
		wantErr string
	}{
		{name: "help", args: []string{"-h"}, want: 0, wantErr: "-duration"},
		{name: "stray argument", args: []string{"extra"}, want: 2, wantErr: `unexpected argument "extra"`},
		{name: "zero duration", args: []string{"--duration", "0s"}, want: 2, wantErr: "must be positive"},
		{name: "uptimes reversed", args: []string{"--min-uptime", "5s", "--max-uptime", "1s"}, want: 2, wantErr: "--max-uptime"},
		{name: "negative hold", args: []string{"--hold", "-1s"}, want: 2, wantErr: "not be negative"},
		{name: "zero rate", args: []string{"--rate", "0"}, want: 2, wantErr: "--rate"},
		{name: "unknown flag", args: []string{"--kills", "3"}, want: 2, wantErr: "-kills"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if got := run(context.Background(), &stdout, &stderr, tt.args); got != tt.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", got, tt.want, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q does not mention %q", stderr.String(), tt.wantErr)
			}
		})
	}
}

// TestConfigLoads checks that the soak's config is one the relay
// accepts, with the secrets the soak gives it.
func TestConfigLoads(t *testing.T) {
	t.Parallel()
	o := relayOptions("hookrelay", t.TempDir(), "sqlite:/tmp/soak.db", "http://127.0.0.1:3/hook")
	path := o.ConfigPath
	if err := os.WriteFile(path, []byte(relayproc.ConfigYAML(o.Database, "127.0.0.1:1", "127.0.0.1:2", o.Config)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range relayEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg, err := config.Load(path, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Destinations) != 1 || cfg.Destinations[0].Secret != sinkSecret || cfg.Sources[0].Secrets[0] != stripeSecret {
		t.Errorf("config %+v", cfg)
	}
}

// TestSoakWithoutKills runs the whole command briefly, with a life longer
// than the run so that nothing is killed: build, serve, send, drain, check.
func TestSoakWithoutKills(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the relay")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "hookrelay")
	if out, err := exec.Command("go", "build", "-o", bin, "../hookrelay").CombinedOutput(); err != nil {
		t.Fatalf("build hookrelay: %v\n%s", err, out)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--hookrelay", bin, "--duration", "1500ms", "--min-uptime", "1m", "--max-uptime", "1m",
		"--rate", "50", "--drain", "30s"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if code := run(ctx, &stdout, &stderr, args); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"RELIABILITY scenario=soak driver=sqlite", "lost=0", "kills=0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not contain %q:\n%s", want, out)
		}
	}
}
