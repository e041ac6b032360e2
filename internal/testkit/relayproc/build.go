// Package relayproc runs the hookrelay binary as a child process, the way
// the end-to-end tests, the benchmark and the soak do: build it once, start
// `hookrelay serve`, wait until its /readyz answers 200, and stop it with a
// signal.
package relayproc

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sync"
)

// Build builds the hookrelay command at pkg (a path such as
// "./cmd/hookrelay", relative to the working directory) into dir and
// returns the binary's path. The compiler's output is in the error.
func Build(ctx context.Context, dir, pkg string) (string, error) {
	return BuildNamed(ctx, dir, pkg, "hookrelay")
}

// BuildNamed builds the command at pkg into dir as name, without the race
// detector whatever the tests run with, and returns the binary's path.
// The compiler's output is in the error.
func BuildNamed(ctx context.Context, dir, pkg, name string) (string, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", name, err, out.String())
	}
	return bin, nil
}

// FreeAddrs returns n distinct loopback addresses whose ports are free
// right now. Every port is held until all are chosen, so two of them are
// never the same, and a port this process was given before is never
// given again: tests running side by side, each starting a process on
// the ports it was given a moment earlier, would otherwise now and then
// both be given one that neither had bound yet, and one would find the
// other's process answering on it.
func FreeAddrs(n int) ([]string, error) {
	addrs := make([]string, 0, n)
	var held []net.Listener
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	for len(addrs) < n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		held = append(held, ln)
		addr := ln.Addr().String()
		if _, given := givenAddrs.LoadOrStore(addr, true); given {
			continue // held until the end, so that the next try is another port
		}
		addrs = append(addrs, addr)
	}
	return addrs, nil
}

// givenAddrs are the addresses FreeAddrs has returned in this process.
var givenAddrs sync.Map
