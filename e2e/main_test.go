// Package e2e runs the built hookrelay binary the way a user does: commands
// typed in a shell, a relay serving on loopback ports, signals to stop it.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// binary is the hookrelay binary built once for the package's tests, and
// seeder the bulkseed command that fills a database with a large history
// (see hostile_seed_test.go).
var binary, seeder string

// parallel is how many parallel tests run at once unless -test.parallel
// says otherwise: the tests mostly wait on child processes, leases and
// retries, and the ones that load the machine do not run in parallel. More
// than four at once on two shared cores makes the hostile tests' time
// bounds (a cut-off within its timeout, a genuine webhook answered within
// seconds) depend on the neighbours.
const parallel = 4

func TestMain(m *testing.M) {
	if err := testkit.DefaultParallel(parallel); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "hookrelay-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var (
		wg                sync.WaitGroup
		binErr, seederErr error
		ctx               = context.Background()
	)
	wg.Go(func() { binary, binErr = relayproc.Build(ctx, dir, "../cmd/hookrelay") })
	wg.Go(func() {
		seeder, seederErr = relayproc.BuildNamed(ctx, dir, "../internal/testkit/bulkseed/cmd/bulkseed", "bulkseed")
	})
	wg.Wait()
	if err := errors.Join(binErr, seederErr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one command run printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary to completion with the given environment additions.
func run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{out.String(), errOut.String(), code}
}

// freeAddrs returns n distinct loopback addresses with free ports.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	addrs, err := relayproc.FreeAddrs(n)
	if err != nil {
		t.Fatal(err)
	}
	return addrs
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	return freeAddrs(t, 1)[0]
}

// relayProc is a `hookrelay serve` child process.
type relayProc struct {
	*relayproc.Proc
	public     string
	admin      string
	configPath string
	env        []string
	logs       *relayproc.Buffer
}

// writeConfig writes a config file into a temporary directory and returns
// its path. body is the YAML after the database and listener keys.
func writeConfig(t *testing.T, database, public, admin, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hookrelay.yaml")
	if err := os.WriteFile(path, []byte(relayproc.ConfigYAML(database, public, admin, body)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startRelay starts `hookrelay serve` on fresh ports and waits until it is
// ready. It is killed at the end of the test if still running.
func startRelay(t *testing.T, database, body string, env []string) *relayProc {
	t.Helper()
	return launchRelay(t, "relay", database, body, env)
}

// launchRelay starts `hookrelay serve` with extra arguments on fresh ports
// and waits until it is ready; name is how failures speak of it. It is
// killed at the end of the test if still running.
func launchRelay(t *testing.T, name, database, body string, env []string, args ...string) *relayProc {
	t.Helper()
	return launchWrapped(t, name, nil, database, body, env, args...)
}

// launchWrapped is launchRelay with the binary run by a wrapper command
// that execs it, such as prlimit: wrap is the wrapper and its arguments.
func launchWrapped(t *testing.T, name string, wrap []string, database, body string, env []string, args ...string) *relayProc {
	t.Helper()
	r := relayproc.Launch(t, name, relayproc.RelayOptions{
		Binary: binary, Wrap: wrap, ConfigPath: filepath.Join(t.TempDir(), "hookrelay.yaml"),
		Database: database, Config: body, Env: env, Args: args, ReadyTimeout: 30 * time.Second,
	})
	o := r.Options
	return &relayProc{Proc: r.Proc, public: o.Public, admin: o.Admin, configPath: o.ConfigPath, env: env, logs: r.Logs}
}

// stop sends SIGTERM and returns the exit code.
func (p *relayProc) stop(t *testing.T) int {
	t.Helper()
	if err := p.Signal(syscall.SIGTERM, 40*time.Second); err != nil {
		t.Fatal(err)
	}
	code, err := p.ExitCode()
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func contains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}
