package relayproc

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Ports are handed out from below the kernel's ephemeral range, which is
// where every listener on port 0 and every outgoing connection gets its
// port: a port taken from that range and let go could be given, the next
// moment, to another test process's server on port 0, and the relay meant
// for it would find that server answering there.
const (
	// lowestPort is the lowest port FreeAddrs hands out.
	lowestPort = 20000
	// ephemeralDefault is the start of the ephemeral range when the
	// kernel does not say.
	ephemeralDefault = 32768
)

// FreeAddrs returns n distinct loopback addresses whose ports are free
// right now and claimed for this process: no other process that takes its
// ports from FreeAddrs is given them while this one runs, and this process
// is never given one twice. Tests side by side — in this process or in
// the other test binaries running at the same time — each start a process
// on the ports they were given a moment earlier; without the claims two
// of them would now and then be given a port neither had bound yet, and
// one would find the other's process answering on it.
//
// A port is claimed by an exclusive lock on a file named after it in a
// directory shared by every process of this user, held until this process
// exits. When the ephemeral range leaves no room below it, ports come from
// the kernel (port 0) as the only fallback.
func FreeAddrs(n int) ([]string, error) {
	hi := ephemeralStart() - 1
	if hi-lowestPort < 1000 {
		return kernelAddrs(n)
	}
	if err := os.MkdirAll(claimDir(), 0o700); err != nil {
		return nil, fmt.Errorf("find a free port: %w", err)
	}
	addrs := make([]string, 0, n)
	for tries := 0; len(addrs) < n; tries++ {
		if tries > 10_000 {
			return nil, errors.New("find a free port: none left to claim")
		}
		port := lowestPort + rand.IntN(hi-lowestPort+1)
		if !claimPort(port) {
			continue
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue // something that does not claim ports holds it: it stays claimed, never given
		}
		ln.Close()
		addrs = append(addrs, addr)
	}
	return addrs, nil
}

// claimed are the lock files of the ports this process has claimed, kept
// open (and so locked) until it exits, by port.
var claimed sync.Map

// claimDir is the directory of the ports' claim files, one for every
// process of this user.
func claimDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("hookrelay-test-ports-%d", os.Getuid()))
}

// claimPath is the claim file of port.
func claimPath(port int) string { return filepath.Join(claimDir(), strconv.Itoa(port)) }

// claimPort claims port for this process, unless this or another process
// claimed it first.
func claimPort(port int) bool {
	if _, ok := claimed.Load(port); ok {
		return false
	}
	f, err := os.OpenFile(claimPath(port), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	if _, dup := claimed.LoadOrStore(port, f); dup {
		f.Close() // claimed by another goroutine of this process meanwhile
		return false
	}
	return true
}

// ephemeralStart returns the first port of the kernel's ephemeral range.
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return ephemeralDefault
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return ephemeralDefault
	}
	port, err := strconv.Atoi(fields[0])
	if err != nil {
		return ephemeralDefault
	}
	return port
}

// kernelAddrs returns n distinct loopback addresses with ports the kernel
// chose, never one this process was given before.
func kernelAddrs(n int) ([]string, error) {
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
		held = append(held, ln) // held until the end, so that the next try is another port
		port := ln.Addr().(*net.TCPAddr).Port
		if _, given := claimed.LoadOrStore(port, (*os.File)(nil)); given {
			continue
		}
		addrs = append(addrs, ln.Addr().String())
	}
	return addrs, nil
}
