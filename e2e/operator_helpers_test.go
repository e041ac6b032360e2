package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// bgCmd is a CLI command left running in the background: `events tail`,
// `listen`.
type bgCmd struct {
	*relayproc.Proc
	stdout, stderr *relayproc.Buffer
}

// startBg starts the binary with args and env added; it is killed at the
// end of the test if still running.
func startBg(t *testing.T, env []string, args ...string) *bgCmd {
	t.Helper()
	b := &bgCmd{stdout: &relayproc.Buffer{}, stderr: &relayproc.Buffer{}}
	b.Proc = relayproc.StartTest(t, fmt.Sprint(args), relayproc.Options{
		Binary: binary, Args: args, Env: env, Output: b.stdout, Stderr: b.stderr,
	})
	return b
}

// waitOutput waits until stdout holds want.
func (b *bgCmd) waitOutput(t *testing.T, want string, within time.Duration) {
	t.Helper()
	testkit.Eventually(t, within, fmt.Sprintf("%q on stdout", want), func() error {
		out := b.stdout.String()
		return testkit.Check(strings.Contains(out, want), "stdout: %q", out)
	})
}

// stop interrupts the command and returns its exit code.
func (b *bgCmd) stop(t *testing.T) int {
	t.Helper()
	return b.stopWith(t, syscall.SIGINT)
}

// stopWith sends sig and returns the exit code, failing the test unless
// the command exits within 15s.
func (b *bgCmd) stopWith(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := b.Send(sig); err != nil {
		t.Fatal(err)
	}
	return b.wait(t, 15*time.Second)
}

// wait returns the exit code, failing unless the command exits in time.
func (b *bgCmd) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-b.Done():
	case <-time.After(within):
		t.Fatalf("did not exit within %s", within)
	}
	code, err := b.ExitCode()
	if err != nil {
		t.Fatal(err)
	}
	return code
}
