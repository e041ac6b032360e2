// Package cli is hookrelay's command line: one file per subcommand. Main
// parses the arguments and returns the process's exit code: 0 ok, 1 failure,
// 2 usage.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// Env is what a command may use of its process: streams and environment.
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env Env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "run the relay: ingest, admin listener, metrics", runServe},
		{"migrate", "apply database migrations and exit", runMigrate},
		{"check-config", "validate the config and print it with secrets masked", runCheckConfig},
		{"doctor", "check config, database, migrations, clock and listeners, and say what to fix", runDoctor},
		{"send", "sign a payload as its provider would and post it to the relay", runSend},
		{"events", "list events, show one, or print its raw bytes (admin API)", runEvents},
		{"replay", "re-deliver stored events chosen by id or filter (admin API)", runReplay},
		{"backfill", "give a destination its deliveries for a past window (admin API)", runBackfill},
		{"verify", "re-check a stored event's signature against the secrets now (admin API)", runVerify},
		{"stats", "deliveries by destination and status, ingest by source (admin API)", runStats},
		{"secrets", "when each secret slot last verified an event: rotation status (admin API)", runSecrets},
		{"reload", "make the relay re-read its config without a restart (admin API)", runReload},
		{"listen", "forward a pull destination's events to a local URL (admin API)", runListen},
		{"version", "print the version", runVersion},
	}
}

// errUsage marks a mistake in the command line; Main answers it with the
// usage text and exit code 2.
var errUsage = errors.New("usage")

// Main runs the command named by args[0] and returns the exit code.
func Main(ctx context.Context, env Env, args []string) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(env.Stderr)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, env, args[1:])
		switch {
		case err == nil:
			return ExitOK
		case errors.Is(err, flag.ErrHelp):
			return ExitOK
		case errors.Is(err, errUsage):
			fmt.Fprintf(env.Stderr, "hookrelay %s: %v\n", c.name, err)
			return ExitUsage
		default:
			fmt.Fprintf(env.Stderr, "hookrelay %s: %v\n", c.name, err)
			return ExitFailure
		}
	}
	fmt.Fprintf(env.Stderr, "hookrelay: unknown command %q\n\n", args[0])
	usage(env.Stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("hookrelay: verify, record and relay webhooks\n\nUsage: hookrelay COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-14s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun 'hookrelay COMMAND -h' for a command's flags.\n")
	_, _ = io.WriteString(w, b.String())
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(env Env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("hookrelay "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

// parseFlags parses args and refuses stray positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}

// newLogger builds the process logger: JSON (or text) lines on w.
func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
