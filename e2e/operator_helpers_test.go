package e2e

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/relayproc"
)

// bgCmd is a CLI command left running in the background: `events tail`,
// `listen --print-json`.
type bgCmd struct {
	cmd            *exec.Cmd
	stdout, stderr *relayproc.Buffer
	exited         chan struct{}
}

// startBg starts the binary with args and env added; it is killed at the
// end of the test if still running.
func startBg(t *testing.T, env []string, args ...string) *bgCmd {
	t.Helper()
	b := &bgCmd{cmd: exec.Command(binary, args...), stdout: &relayproc.Buffer{}, stderr: &relayproc.Buffer{}, exited: make(chan struct{})}
	b.cmd.Env = append(os.Environ(), env...)
	b.cmd.Stdout, b.cmd.Stderr = b.stdout, b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = b.cmd.Wait()
		close(b.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-b.exited:
		default:
			_ = b.cmd.Process.Kill()
			<-b.exited
		}
		if t.Failed() {
			t.Logf("%v stdout:\n%s\nstderr:\n%s", args, b.stdout.String(), b.stderr.String())
		}
	})
	return b
}

// waitOutput waits until stdout holds want.
func (b *bgCmd) waitOutput(t *testing.T, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(b.stdout.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stdout within %s", want, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop interrupts the command and returns its exit code.
func (b *bgCmd) stop(t *testing.T) int {
	t.Helper()
	_ = b.cmd.Process.Signal(syscall.SIGINT)
	return b.wait(t, 15*time.Second)
}

// wait returns the exit code, failing unless the command exits in time.
func (b *bgCmd) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-b.exited:
	case <-time.After(within):
		t.Fatalf("did not exit within %s", within)
	}
	return b.cmd.ProcessState.ExitCode()
}
