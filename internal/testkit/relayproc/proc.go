package relayproc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Options say how to start the child.
type Options struct {
	// Binary is the path of the hookrelay binary.
	Binary string
	// Args are the arguments, e.g. "serve", "--config", path.
	Args []string
	// Env is added to this process's environment.
	Env []string
	// Output receives the child's stdout and stderr; nil discards them.
	Output io.Writer
	// Stderr, when set, receives the child's stderr instead of Output.
	Stderr io.Writer
	// Admin is the admin listener's address, where /readyz is polled.
	Admin string
	// ReadyPoll is how often WaitReady asks /readyz; zero is 50 ms.
	ReadyPoll time.Duration
}

// Proc is a running child process.
type Proc struct {
	cmd   *exec.Cmd
	admin string
	poll  time.Duration // between two asks of /readyz
	done  chan struct{}
	err   error // set before done is closed
}

// Start starts the child. It does not wait until it is ready: see
// WaitReady.
func Start(o Options) (*Proc, error) {
	cmd := exec.Command(o.Binary, o.Args...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Stdout, cmd.Stderr = o.Output, o.Output
	if o.Stderr != nil {
		cmd.Stderr = o.Stderr
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start relay: %w", err)
	}
	p := &Proc{cmd: cmd, admin: o.Admin, poll: cmp.Or(o.ReadyPoll, 50*time.Millisecond), done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid is the child's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the child has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is what waiting for the child returned: nil for exit status 0, an
// *exec.ExitError otherwise. It is valid once Done is closed.
func (p *Proc) Err() error { return p.err }

// Exited reports whether the child has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// readyBody is what a relay's /readyz answers with its 200.
const readyBody = `{"status":"ready"}`

// WaitReady polls the admin listener's /readyz until it answers 200 with
// a relay's body, the child exits, ctx ends or timeout passes. The body
// tells the relay from another test's server that took the port between
// FreeAddrs and the relay's start: such a relay cannot listen, and exits.
func (p *Proc) WaitReady(ctx context.Context, timeout time.Duration) error {
	url := "http://" + p.admin + "/readyz"
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("build readiness request: %w", err)
		}
		if resp, err := client.Do(req); err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.TrimSpace(string(body)) == readyBody {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("relay exited before it was ready: %v", p.err)
		case <-ctx.Done():
			return fmt.Errorf("wait for readiness: %w", ctx.Err())
		case <-time.After(p.poll):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("relay not ready after %v", timeout)
		}
	}
}

// ErrStillRunning is returned by Signal when the child outlives its
// timeout.
var ErrStillRunning = errors.New("relayproc: still running")

// Signal sends sig and waits until the child exits, at most timeout (0
// waits as long as it takes). It returns ErrStillRunning, wrapped, when the
// child is still running after timeout; the child is left running then.
func (p *Proc) Signal(sig os.Signal, timeout time.Duration) error {
	if err := p.Send(sig); err != nil {
		return err
	}
	if timeout == 0 {
		<-p.done
		return nil
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
		return fmt.Errorf("%w %v after %v", ErrStillRunning, timeout, sig)
	}
}

// Send sends sig and returns at once; a child that has already exited is
// not an error.
func (p *Proc) Send(sig os.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal child: %w", err)
	}
	return nil
}

// Kill sends SIGKILL and waits until the child is gone.
func (p *Proc) Kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// ExitCode is the child's exit code, once Done is closed: -1 when a signal
// ended it. The error is one that is not an exit status.
func (p *Proc) ExitCode() (int, error) {
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, p.err
}

// Stop sends SIGTERM and waits up to timeout (0 waits as long as it takes)
// for the child to exit, killing it after that. It returns nil only when
// the child exited with status 0; a child that had already exited is
// reported as such.
func (p *Proc) Stop(timeout time.Duration) error {
	if p.Exited() {
		return p.exitErr("exited early")
	}
	if err := p.Signal(syscall.SIGTERM, timeout); errors.Is(err, ErrStillRunning) {
		p.Kill()
		return fmt.Errorf("still running %v after SIGTERM; killed", timeout)
	} else if err != nil {
		return err
	}
	return p.exitErr("exited after SIGTERM")
}

// exitErr is nil when the child exited with status 0, or says what
// happened and wraps how it ended.
func (p *Proc) exitErr(what string) error {
	if p.err != nil {
		return fmt.Errorf("%s: %w", what, p.err)
	}
	return nil
}
