package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// errProblems makes doctor exit 1 once it has printed what to fix.
var errProblems = errors.New("problems found")

// Levels of a doctor finding.
const (
	findingOK      = "ok"
	findingWarn    = "warn"
	findingProblem = "PROBLEM"
)

// finding is one line of doctor's report: what was checked, how it went,
// and what it found or what to do.
type finding struct {
	check, level, text string
}

// report collects findings.
type report struct{ findings []finding }

func (r *report) add(check, level, format string, args ...any) {
	r.findings = append(r.findings, finding{check, level, fmt.Sprintf(format, args...)})
}

func (r *report) problems() int {
	n := 0
	for _, f := range r.findings {
		if f.level == findingProblem {
			n++
		}
	}
	return n
}

func (r *report) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range r.findings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.check, f.level, f.text)
	}
	return tw.Flush()
}

func runDoctor(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "doctor")
	path := addConfigFlag(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay doctor [--config F]\n\n"+
			"Checks the config, the database and its migrations, this host's clock against the providers'\n"+
			"event times, and the listeners, and prints what to fix. Changes nothing. Exits 1 when it\n"+
			"finds a problem.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	r := &report{}
	// What the checks below use must load; an unset variable elsewhere
	// is a problem to report, not a reason to check nothing.
	cfg, err := config.LoadParts(*path, env.Getenv, "database", "listen", "admin_listen", "log")
	if err != nil {
		r.add("config", findingProblem, "%s does not load: fix each line below, then run doctor again", *path)
		for _, line := range strings.Split(err.Error(), "\n") {
			r.add("config", findingProblem, "%s", line)
		}
		_ = r.print(env.Stdout)
		return errProblems
	}
	r.add("config", findingOK, "%s: %s, %s, %s", cfg.Path, counted(len(cfg.Sources), "source", "sources"), counted(len(cfg.Destinations), "destination", "destinations"), counted(len(cfg.Tokens), "token", "tokens"))
	for _, w := range cfg.Warnings {
		r.add("config", findingWarn, "%s", w)
	}
	for _, p := range cfg.Unused {
		r.add("config", findingProblem, "%s: serve refuses to start until it is set", p)
	}
	checkDatabase(ctx, r, cfg)
	checkListener(ctx, r, "listen", cfg.Listen, probePublic)
	checkListener(ctx, r, "admin_listen", cfg.AdminListen, probeAdmin)
	if err := r.print(env.Stdout); err != nil {
		return err
	}
	if n := r.problems(); n > 0 {
		fmt.Fprintf(env.Stdout, "%s found\n", counted(n, "problem", "problems"))
		return errProblems
	}
	fmt.Fprintln(env.Stdout, "no problems found")
	return nil
}

// checkDatabase opens the database without creating or migrating it,
// lists pending migrations, and checks the clock against the providers'.
func checkDatabase(ctx context.Context, r *report, cfg *config.Config) {
	driver, dsn := cfg.DatabaseDriver()
	where := driver
	if driver == "sqlite" {
		where = "sqlite " + dsn
		if _, err := os.Stat(dsn); errors.Is(err, os.ErrNotExist) {
			dir := filepath.Dir(dsn)
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				r.add("database", findingProblem, "%s: directory %s does not exist: create it, or change database", where, dir)
				return
			}
			r.add("database", findingWarn, "%s does not exist yet: serve creates it (and migrate applies the schema)", where)
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := storeopen.Open(ctx, cfg.Database, slog.New(slog.DiscardHandler))
	if err == nil {
		err = st.Ping(ctx)
		defer st.Close()
	}
	if err != nil {
		r.add("database", findingProblem, "%s does not answer: %v", where, innermost(err))
		return
	}
	r.add("database", findingOK, "%s answers", where)
	pending, err := st.PendingMigrations(ctx)
	switch {
	case err != nil:
		r.add("migrations", findingProblem, "cannot read the applied migrations: %v", err)
		return
	case len(pending) > 0:
		r.add("migrations", findingProblem, "%d pending (%s): run `hookrelay migrate` (serve also applies them at start)",
			len(pending), strings.Join(pending, ", "))
		return
	}
	r.add("migrations", findingOK, "all applied")
	checkRunner(ctx, r, st)
	checkClock(ctx, r, cfg, st, time.Now())
	checkFleet(ctx, r, cfg, st, time.Now())
}

// innermost is the error at the end of err's chain: what went wrong,
// without the layers that each said which database they were opening.
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
