package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

func runKeys(ctx context.Context, env Env, args []string) error {
	return runVerb(ctx, env, "keys", args, []verb{
		{"status", runKeysStatus},
		{"rotate", runKeysRotate},
	})
}

func runKeysStatus(ctx context.Context, env Env, args []string) error {
	cfg, err := configOnly(env, "keys status", args, "database", "encryption")
	if err != nil {
		return err
	}
	st, keys, err := openKeyed(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	counts, err := st.PayloadKeyCounts(ctx)
	if err != nil {
		return err
	}
	return printKeyCounts(env.Stdout, counts, keys)
}

func runKeysRotate(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "keys rotate")
	path := addConfigFlag(fs)
	batch := fs.Int("batch", 200, "rows per transaction, 1 to 10000: smaller batches hold the database for less time")
	pause := fs.Duration("pause", 0, "wait between two batches, to leave the database more room under load")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay keys rotate [--config FILE] [--batch N] [--pause D]\n\n"+
			"Re-seals every stored payload (event bodies and headers, attempt response snippets) that is\n"+
			"plain or under an older key with the first key of encryption.keys, in small transactions,\n"+
			"while the relay runs. Put the new key first in every relay's config and restart them before;\n"+
			"remove the old key once this reports nothing left under it. Ctrl-C stops between two batches;\n"+
			"running it again resumes.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *batch < 1 || *batch > 10000 {
		return fmt.Errorf("%w: --batch %d: want 1 to 10000 rows", errUsage, *batch)
	}
	cfg, err := loadConfig(env, *path, "database", "encryption")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, keys, err := openKeyed(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	before, err := st.PayloadKeyCounts(ctx)
	if err != nil {
		return err
	}
	if err := checkKnownKeys(before, keys); err != nil {
		return err
	}
	current := keys.Current()
	out := rotationOutput{w: env.Stdout, pause: *pause}
	events, err := resealTable(ctx, out, "events", notUnder(before.Events, current), "",
		func(ctx context.Context, after string) (int, string, error) {
			return st.ResealEvents(ctx, after, *batch)
		})
	attempts := 0
	if err == nil {
		attempts, err = resealTable(ctx, out, "attempts", notUnder(before.Attempts, current), 0,
			func(ctx context.Context, after int64) (int, int64, error) {
				return st.ResealAttempts(ctx, after, *batch)
			})
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("stopped: %s and %s re-sealed so far; run `hookrelay keys rotate` again to resume", counted(events, eventNoun, eventsNoun), counted(attempts, "attempt", "attempts"))
	}
	if err != nil {
		return err
	}
	after, err := st.PayloadKeyCounts(ctx)
	if err != nil {
		return err
	}
	left := notUnder(after.Events, current) + notUnder(after.Attempts, current)
	if left > 0 {
		printKeyCounts(env.Stdout, after, keys)
		return fmt.Errorf("%d rows are still not under %s: a relay still seals with an older key; put %s first in encryption.keys of every relay, restart them, and run this again", left, current, current)
	}
	fmt.Fprintf(env.Stdout, "done: every payload is under key %s (%s, %s re-sealed)\n", current, counted(events, eventNoun, eventsNoun), counted(attempts, "attempt", "attempts"))
	if old := slices.DeleteFunc(keys.IDs(), func(id string) bool { return id == current }); len(old) > 0 {
		fmt.Fprintf(env.Stdout, "no row is under %s any more: %s may be removed from encryption.keys\n", strings.Join(old, ", "), pluralIt(len(old)))
	}
	return nil
}

// pluralIt is "it" or "they".
func pluralIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}

// rotationOutput is where a rotation writes its progress, and how long
// it waits between two batches.
type rotationOutput struct {
	w     io.Writer
	pause time.Duration
}

// resealTable re-seals one table with reseal, in batches from start until
// one re-seals nothing, writing its progress at most every second, and
// returns how many rows it re-sealed. total is how many rows needed it
// when the run began.
func resealTable[C any](ctx context.Context, out rotationOutput, table string, total int64, start C, reseal func(context.Context, C) (int, C, error)) (int, error) {
	done, after := 0, start
	began, shown := time.Now(), time.Time{}
	show := func() {
		rate := float64(done) / max(time.Since(began).Seconds(), 0.001)
		fmt.Fprintf(out.w, "%s: %d of %d re-sealed (%.0f/s)\n", table, done, max(total, int64(done)), rate)
		shown = time.Now()
	}
	for {
		if err := ctx.Err(); err != nil {
			show()
			return done, err
		}
		n, last, err := reseal(ctx, after)
		if err != nil {
			return done, err
		}
		if n == 0 {
			show()
			return done, nil
		}
		done, after = done+n, last
		if time.Since(shown) >= time.Second {
			show()
		}
		if out.pause > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(out.pause):
			}
		}
	}
}

// openKeyed opens the config's database with its keys, refusing a config
// that names none and a database with pending migrations.
func openKeyed(ctx context.Context, cfg *config.Config) (store.DB, *payloadcrypt.Ring, error) {
	keys, err := cfg.KeyRing()
	if err != nil {
		return nil, nil, err
	}
	if keys == nil {
		return nil, nil, errors.New("the config names no encryption keys: add encryption.keys (see the README's Encryption at rest)")
	}
	st, err := storeopen.OpenWith(ctx, cfg.Database, storeopen.Options{Keys: keys}, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, nil, err
	}
	pending, err := st.PendingMigrations(ctx)
	if err == nil && len(pending) > 0 {
		err = fmt.Errorf("%d migrations are pending (%s): run `hookrelay migrate` first", len(pending), strings.Join(pending, ", "))
	}
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, keys, nil
}

// checkKnownKeys fails when a row is under a key id the ring lacks: it can
// be neither read nor re-sealed.
func checkKnownKeys(c store.KeyCounts, keys *payloadcrypt.Ring) error {
	var missing []string
	for _, id := range keyIDs(c, nil) {
		if id != "" && !keys.Has(id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("rows are sealed under %s, which encryption.keys does not list: add %s back (after the new key) to read and re-seal them",
			strings.Join(missing, ", "), pluralIt(len(missing)))
	}
	return nil
}

// notUnder counts the rows of counts not under key id.
func notUnder(counts map[string]int64, id string) int64 {
	var n int64
	for k, v := range counts {
		if k != id {
			n += v
		}
	}
	return n
}

// printKeyCounts writes a table of the rows under each key id.
func printKeyCounts(w io.Writer, c store.KeyCounts, keys *payloadcrypt.Ring) error {
	ids := keyIDs(c, keys)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tEVENTS\tATTEMPTS\tSTATE")
	for _, id := range ids {
		state := "configured"
		switch {
		case id == "":
			state = "stored plain"
		case id == keys.Current():
			state = "configured, seals new rows"
		case !keys.Has(id):
			state = "NOT CONFIGURED: these rows cannot be read"
		}
		name := id
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", name, c.Events[id], c.Attempts[id], state)
	}
	return tw.Flush()
}

// keyIDs returns, sorted, the key ids that rows of c are under ("" for
// plain) and those of keys.
func keyIDs(c store.KeyCounts, keys *payloadcrypt.Ring) []string {
	set := map[string]bool{}
	for _, id := range keys.IDs() {
		set[id] = true
	}
	for _, m := range []map[string]int64{c.Events, c.Attempts} {
		for id := range m {
			set[id] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}
