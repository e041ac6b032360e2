package relayproc

import (
	"context"
	"testing"
)

// Launch is StartRelay for a test, named name in what it logs: it fails
// the test when the relay is not ready, and when the test ends kills the
// relay if it is still running and, if the test failed, logs its output.
func Launch(t testing.TB, name string, o RelayOptions) *Relay {
	t.Helper()
	r, err := StartRelay(context.Background(), o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		if !r.Exited() {
			r.Kill()
		}
		if t.Failed() {
			t.Logf("%s (pid %d) logs:\n%s", name, r.Pid(), r.Log())
		}
	})
	return r
}

// StartTest starts a child for a test, named name in what it logs: it
// fails the test when the child cannot start, and when the test ends
// kills the child if it is still running and, if the test failed, logs
// what it wrote to o.Output and o.Stderr when they are Buffers.
func StartTest(t testing.TB, name string, o Options) *Proc {
	t.Helper()
	p, err := Start(o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		if !p.Exited() {
			p.Kill()
		}
		if !t.Failed() {
			return
		}
		if b, ok := o.Output.(*Buffer); ok {
			what := "output"
			if o.Stderr != nil {
				what = "stdout"
			}
			t.Logf("%s (pid %d) %s:\n%s", name, p.Pid(), what, b.String())
		}
		if b, ok := o.Stderr.(*Buffer); ok {
			t.Logf("%s (pid %d) stderr:\n%s", name, p.Pid(), b.String())
		}
	})
	return p
}
