package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
)

// help is what `hookrelay help NAME` and `hookrelay NAME -h` say of one
// command or verb besides its flags.
type help struct {
	// summary is the one-line description.
	summary string
	// example is a command line that works as it is written.
	example string
}

// helps holds the summary and an example of every command and verb, by
// the name typed after "hookrelay".
var helps = map[string]help{
	"serve":               {"run the relay: ingest, delivery, admin listener, metrics", "hookrelay serve --config hookrelay.yaml --role worker --admin-listen 127.0.0.1:8091"},
	"migrate":             {"apply database migrations and exit (export: write them for your own migration tool)", "hookrelay migrate --config hookrelay.yaml"},
	"migrate export":      {"write hookrelay's migrations as SQL files for an application's migration tool (golang-migrate), without a database", "hookrelay migrate export --driver postgres --schema hookrelay --dir migrations/hookrelay"},
	"copy-store":          {"copy everything a stopped relay keeps into another, empty database (SQLite to PostgreSQL)", "hookrelay copy-store --from sqlite:/var/lib/hookrelay/hookrelay.db --to postgres://hookrelay@db.internal/hookrelay"},
	"keys":                {"which encryption key each stored payload is under, and re-sealing them under the newest", "hookrelay keys rotate --config hookrelay.yaml"},
	"keys status":         {"how many events and attempts are under each key id, plain included", "hookrelay keys status --config hookrelay.yaml"},
	"keys rotate":         {"re-seal every payload that is plain or under an older key with the first key, in small batches", "hookrelay keys rotate --config hookrelay.yaml --batch 200"},
	"partitions":          {"partition a PostgreSQL event log by day or hour, or list its partitions", "hookrelay partitions list --config hookrelay.yaml"},
	"partitions enable":   {"partition the event log of a database that holds events by the config's period (stop the relays first)", "hookrelay partitions enable --config hookrelay.yaml"},
	"partitions list":     {"each partition of the event log with its time range and the planner's estimate of its rows", "hookrelay partitions list --config hookrelay.yaml"},
	"backup":              {"copy a SQLite database, live, into a new file (PostgreSQL: pg_dump)", "hookrelay backup --config hookrelay.yaml --to /backups/hookrelay-2026-12-04.db"},
	"check-config":        {"validate the config and print it with secrets masked", "hookrelay check-config --config hookrelay.yaml"},
	"doctor":              {"check config, database, migrations, clock and listeners, and say what to fix", "hookrelay doctor --config hookrelay.yaml"},
	"reload":              {"make the relay re-read its config without a restart (admin API)", "hookrelay reload"},
	"send":                {"sign a payload as its provider would and post it to the relay", "hookrelay send --config hookrelay.yaml --source stripe --file examples/events/stripe-invoice-paid.json"},
	"events":              {"list events, show one, follow new ones, or print its raw bytes (admin API)", "hookrelay events list --source stripe --since -2h"},
	"events list":         {"list events, newest first, or find them by the start of an id (--id) or text in the payload (--text)", "hookrelay events list --source stripe --type 'invoice.*' --since -2h"},
	"events show":         {"show one event with its headers, deliveries and attempts", "hookrelay events show 01JDX8Y6Q3M1T2V5W7Z9A0B4C6"},
	"events raw":          {"write an event's stored body to standard output, byte for byte", "hookrelay events raw 01JDX8Y6Q3M1T2V5W7Z9A0B4C6 > fixture.json"},
	"events tail":         {"print new events as they arrive, one line each, until Ctrl-C", "hookrelay events tail --source stripe"},
	"replay":              {"re-deliver stored events chosen by id or filter (admin API)", "hookrelay replay --status dead --destination billing --since -1d"},
	"backfill":            {"give a destination its deliveries for a past window (admin API)", "hookrelay backfill --destination audit --since -30d"},
	"purge":               {"erase the payload of events by id, provider id or a value in the body, keeping a tombstone (admin API)", "hookrelay purge --path data.object.customer --value cus_123 --source stripe --reason 'erasure request 42'"},
	"verify":              {"re-check a stored event's signature against the secrets now (admin API)", "hookrelay verify 01JDX8Y6Q3M1T2V5W7Z9A0B4C6"},
	"stats":               {"deliveries by destination and status, ingest by source (admin API)", "hookrelay stats --json"},
	"secrets":             {"when each secret slot last verified an event: rotation status (admin API)", "hookrelay secrets --json"},
	"rejections":          {"requests that failed verification: time, source, reason, skew (admin API)", "hookrelay rejections --source stripe --since -1h"},
	"audit":               {"who replayed, backfilled or purged what, and when (admin API)", "hookrelay audit --since -7d"},
	"failures":            {"failed and dead deliveries grouped by destination and kind (5xx, timeout, TLS, DNS, ...), with counts and an example (admin API)", "hookrelay failures --destination billing"},
	"destinations":        {"list destinations with their backlog; pause, resume, skip a delivery (admin API)", "hookrelay destinations"},
	"destinations list":   {"each destination with its kind, URL, backlog, oldest pending age, dead count and last error", "hookrelay destinations list"},
	"destinations pause":  {"stop delivering to a destination: deliveries wait, nothing is dropped", "hookrelay destinations pause billing"},
	"destinations resume": {"deliver to a paused destination again", "hookrelay destinations resume billing"},
	"destinations skip":   {"mark one stuck delivery skipped so that it is not tried again (audited)", "hookrelay destinations skip 4211"},
	"jobs":                {"the replay and backfill jobs of every relay process on the database, with their progress (admin API)", "hookrelay jobs"},
	"jobs list":           {"each job with its state, how far it went, its rate and who started it", "hookrelay jobs list --json"},
	"jobs cancel":         {"stop a job between two batches, keeping what it did", "hookrelay jobs cancel job_3f2a9c0d1e4b5a6f"},
	"listen":              {"forward a pull destination's events to a local URL (admin API)", "hookrelay listen --destination dev --forward-to http://localhost:3000/webhooks"},
	"health":              {"exit 0 when the relay's admin listener answers ready, 1 otherwise: a health check without curl", "hookrelay health --url http://127.0.0.1:8081/readyz"},
	"version":             {"print the version and the commit it was built from", "hookrelay version"},
}

// newFlagSet returns a flag set that reports errors instead of exiting.
// Its help goes to standard output and ends with the command's example;
// parseFlags and parseArgs keep the flag package from printing errors, so
// that Main prints each once.
func newFlagSet(env Env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("hookrelay "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stdout)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: hookrelay %s [flags]\n\n%s.\n\n", name, upperFirst(helps[name].summary))
		fs.PrintDefaults()
	}
	return fs
}

// parseQuietly parses args with the flag package's own printing off, and
// prints the help with its example when -h asked for it.
func parseQuietly(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if err == flag.ErrHelp {
		fs.Usage()
		if h, ok := helps[strings.TrimPrefix(fs.Name(), "hookrelay ")]; ok {
			fmt.Fprintf(out, "\nExample:\n  %s\n", h.example)
		}
	}
	return err
}

// helpVerbs prints the help of a command made of verbs (events,
// destinations) to w.
func helpVerbs(w io.Writer, name string, verbs []string) {
	fmt.Fprintf(w, "Usage: hookrelay %s %s [flags]\n\n%s.\n\n", name, strings.Join(verbs, "|"), upperFirst(helps[name].summary))
	for _, v := range verbs {
		fmt.Fprintf(w, "  %-8s %s\n", v, helps[name+" "+v].summary)
	}
	fmt.Fprintf(w, "\nExample:\n  %s\n\nRun 'hookrelay %s VERB -h' for a verb's flags.\n", helps[name].example, name)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// verb is one verb of a command made of verbs.
type verb struct {
	name string
	run  func(context.Context, Env, []string) error
}

// runVerb runs the verb args[0] of command name, or prints the command's
// help.
func runVerb(ctx context.Context, env Env, name string, args []string, verbs []verb) error {
	names := make([]string, len(verbs))
	for i, v := range verbs {
		names[i] = v.name
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			helpVerbs(env.Stderr, name, names)
			return fmt.Errorf("%w: want %s", errUsage, orList(names))
		}
		helpVerbs(env.Stdout, name, names)
		return flag.ErrHelp
	}
	for _, v := range verbs {
		if v.name == args[0] {
			return v.run(ctx, env, args[1:])
		}
	}
	return fmt.Errorf("%w: unknown verb %q%s (want %s)", errUsage, args[0], config.DidYouMean(args[0], names), orList(names))
}

// orList writes "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
