package relayproc

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// RelayOptions say how to run `hookrelay serve`.
type RelayOptions struct {
	// Binary is the hookrelay binary. Wrap, when set, is a command and its
	// arguments that exec the binary, such as prlimit.
	Binary string
	Wrap   []string
	// ConfigPath is the config file. When Database is set, StartRelay
	// writes the file first: Database, the listeners, then Config. When
	// Database is empty the file is used as it is, and Admin must name its
	// admin listener.
	ConfigPath string
	Database   string
	Config     string
	// Public and Admin are the ingest and admin listeners' addresses; when
	// the config is written, empty ones are free loopback ports.
	Public, Admin string
	// Args follow `serve --config ConfigPath`.
	Args []string
	// Env is added to this process's environment.
	Env []string
	// LogPath, when set, is the file the relay's output is appended to;
	// otherwise the output is kept in Relay.Logs.
	LogPath string
	// ReadyTimeout bounds the wait for /readyz; zero means 60s.
	ReadyTimeout time.Duration
}

// Relay is a running `hookrelay serve`.
type Relay struct {
	*Proc
	// Options are those it was started with, its listeners filled in:
	// StartRelay(ctx, r.Options) runs it again on the same config,
	// database and ports.
	Options RelayOptions
	// Logs holds the relay's output when Options.LogPath is empty.
	Logs *Buffer
}

// ConfigYAML is a config file's text: database and listeners, then rest,
// the YAML of everything else.
func ConfigYAML(database, public, admin, rest string) string {
	return fmt.Sprintf("database: %q\nlisten: %q\nadmin_listen: %q\n%s", database, public, admin, rest)
}

// portTries is how many times StartRelay starts a relay on fresh ports
// when another process took one of them first.
const portTries = 3

// StartRelay writes the config when o.Database is set, starts the relay and
// waits until its /readyz answers 200. When the relay is not ready, it is
// killed and the error ends with the last lines of its output. Ports it
// chose itself may be taken by another process before the relay listens on
// them (FreeAddrs frees them for the relay); it then starts the relay again
// on fresh ones.
func StartRelay(ctx context.Context, o RelayOptions) (*Relay, error) {
	chosen := o.Database != "" && (o.Public == "" || o.Admin == "")
	for try := 1; ; try++ {
		r, err := startRelay(ctx, o)
		if err == nil {
			return r, nil
		}
		if !chosen || try == portTries || r == nil || !portTaken(r.Log()) {
			return nil, err
		}
	}
}

// portTaken reports whether a relay's output says it could not listen on
// an address in use.
func portTaken(log string) bool { return strings.Contains(log, "address already in use") }

// startRelay is one try of StartRelay. When the relay is not ready it
// returns the killed relay, for its output, with the error.
func startRelay(ctx context.Context, o RelayOptions) (*Relay, error) {
	if o.Database != "" {
		if o.Public == "" || o.Admin == "" {
			addrs, err := FreeAddrs(2)
			if err != nil {
				return nil, err
			}
			o.Public, o.Admin = cmp.Or(o.Public, addrs[0]), cmp.Or(o.Admin, addrs[1])
		}
		if err := os.WriteFile(o.ConfigPath, []byte(ConfigYAML(o.Database, o.Public, o.Admin, o.Config)), 0o600); err != nil {
			return nil, fmt.Errorf("write relay config: %w", err)
		}
	}
	r := &Relay{Options: o}
	var out io.Writer
	if o.LogPath != "" {
		f, err := os.OpenFile(o.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open relay log: %w", err)
		}
		defer f.Close() // the child holds its own descriptor
		out = f
	} else {
		r.Logs = &Buffer{}
		out = r.Logs
	}
	argv := append(append(append([]string(nil), o.Wrap...), o.Binary, "serve", "--config", o.ConfigPath), o.Args...)
	p, err := Start(Options{Binary: argv[0], Args: argv[1:], Env: o.Env, Output: out, Admin: o.Admin})
	if err != nil {
		return nil, err
	}
	r.Proc = p
	if err := p.WaitReady(ctx, cmp.Or(o.ReadyTimeout, 60*time.Second)); err != nil {
		p.Kill()
		return r, fmt.Errorf("%w; log:\n%s", err, r.Tail(20))
	}
	return r, nil
}

// IngestURL is where the relay takes source's webhooks.
func (r *Relay) IngestURL(source string) string {
	return "http://" + r.Options.Public + "/webhooks/" + source
}

// Log returns what the relay has written so far.
func (r *Relay) Log() string {
	if r.Logs != nil {
		return r.Logs.String()
	}
	b, err := os.ReadFile(r.Options.LogPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return string(b)
}

// Tail returns the last n lines the relay has written.
func (r *Relay) Tail(n int) string {
	lines := strings.Split(strings.TrimRight(r.Log(), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
