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

	"github.com/hookrelay/hookrelay/internal/config"
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

// command is one subcommand; its summary and example are in helps.
type command struct {
	name string
	run  func(ctx context.Context, env Env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", runServe},
		{"migrate", runMigrate},
		{"partitions", runPartitions},
		{"copy-store", runCopyStore},
		{"keys", runKeys},
		{"backup", runBackup},
		{"check-config", runCheckConfig},
		{"doctor", runDoctor},
		{"send", runSend},
		{"events", runEvents},
		{"replay", runReplay},
		{"backfill", runBackfill},
		{"purge", runPurge},
		{"verify", runVerify},
		{"stats", runStats},
		{"secrets", runSecrets},
		{"reload", runReload},
		{"destinations", runDestinations},
		{"jobs", runJobs},
		{"rejections", runRejections},
		{"audit", runAudit},
		{"failures", runFailures},
		{"listen", runListen},
		{"health", runHealth},
		{"version", runVersion},
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
	switch {
	case len(args) == 0:
		usage(env.Stderr)
		return ExitUsage
	case args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && len(args) == 1):
		usage(env.Stdout)
		return ExitOK
	case args[0] == "help":
		// `hookrelay help events list` is `hookrelay events list -h`.
		args = append(args[1:], "-h")
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
		case errors.Is(err, errProblems):
			return ExitFailure // the command printed them
		case errors.Is(err, errUsage):
			fmt.Fprintf(env.Stderr, "hookrelay %s: %s\n(run 'hookrelay help %s' for its flags and an example)\n",
				c.name, strings.TrimPrefix(err.Error(), errUsage.Error()+": "), c.name)
			return ExitUsage
		default:
			fmt.Fprintf(env.Stderr, "hookrelay %s: %v\n", c.name, err)
			return ExitFailure
		}
	}
	names := make([]string, 0, len(commands()))
	for _, c := range commands() {
		names = append(names, c.name)
	}
	fmt.Fprintf(env.Stderr, "hookrelay: unknown command %q%s\n\n", args[0], config.DidYouMean(args[0], names))
	usage(env.Stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("hookrelay: verify, record and relay webhooks\n\nUsage: hookrelay COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-14s %s\n", c.name, helps[c.name].summary)
	}
	b.WriteString("\nRun 'hookrelay help COMMAND' for a command's flags and an example.\n")
	_, _ = io.WriteString(w, b.String())
}

// parseFlags parses args and refuses stray positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseQuietly(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w%s", errUsage, err, flagSuggestion(fs, err))
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}

// flagSuggestion is the did-you-mean of a flag the flag set does not
// define, or "".
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	name = strings.TrimLeft(name, "-")
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	if s := config.DidYouMean(name, known); s != "" {
		return strings.Replace(s, `"`, `"--`, 1)
	}
	return ""
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
