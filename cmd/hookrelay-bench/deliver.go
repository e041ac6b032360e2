package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
	"github.com/hookrelay/hookrelay/internal/testkit/proccpu"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// deliverFlags are the options of the deliver command.
type deliverFlags struct {
	drivers       []string
	deliveries    int
	concurrency   int
	rate          string
	body          int
	logLevel      string
	latencyEvents int
	latencyGap    time.Duration
	historyBase   int64
	history       int64
	claims        int
	timeout       time.Duration
	postgresURL   string
	binary        string
	encrypt       bool
}

func parseDeliverFlags(stderr io.Writer, args []string) (deliverFlags, error) {
	var f deliverFlags
	fs := newFlagSet("deliver", stderr)
	driver := fs.String("driver", "both", "sqlite, postgres or both")
	fs.IntVar(&f.deliveries, "deliveries", 100_000, "pending deliveries prepared, then drained")
	fs.IntVar(&f.concurrency, "concurrency", 32, "the destination's concurrency, and the plain client's senders")
	rateFlag(fs, &f.rate)
	fs.IntVar(&f.body, "body", 2048, "body size in bytes")
	fs.StringVar(&f.logLevel, "log-level", "warn", "the relay's log level")
	fs.IntVar(&f.latencyEvents, "latency-events", 200, "events posted one at a time to measure ingest-to-delivery latency; 0 skips")
	fs.DurationVar(&f.latencyGap, "latency-gap", 20*time.Millisecond, "time between the starts of two latency posts")
	fs.Int64Var(&f.historyBase, "history-base", 10_000, "done deliveries behind the first claim measurement (PostgreSQL)")
	fs.Int64Var(&f.history, "history", 5_000_000, "done deliveries behind the second claim measurement (PostgreSQL); 0 skips the claim check")
	fs.IntVar(&f.claims, "claims", 300, "claims of 32 timed per history size")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "longest a drain may take")
	fs.StringVar(&f.postgresURL, "postgres-url", defaultPostgresURL, "PostgreSQL server on which scratch schemas are created and dropped")
	fs.StringVar(&f.binary, "binary", "", "hookrelay binary to run; default: build ./cmd/hookrelay")
	fs.BoolVar(&f.encrypt, "encrypt", false, "payloads are stored sealed under a random key and the relay opens them (encryption at rest)")
	err := parseFlags(fs, args)
	if err != nil {
		return f, err
	}
	if f.drivers, err = driverList(*driver); err != nil {
		return f, err
	}
	if err := checkRate(f.rate); err != nil {
		return f, err
	}
	if f.deliveries <= 0 || f.concurrency <= 0 || f.body <= 0 || f.latencyEvents < 0 || f.latencyGap < 0 ||
		f.claims <= 0 || f.timeout <= 0 || f.historyBase < 0 || (f.history > 0 && f.history <= f.historyBase) {
		return f, fmt.Errorf("%w: counts and durations must be positive, and --history above --history-base", errUsage)
	}
	return f, nil
}

// runDeliver measures, per driver, the drain of prepared deliveries against
// a plain client, then ingest-to-delivery latency on the idle relay; then,
// on PostgreSQL, the claim's cost as history grows.
func runDeliver(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	f, err := parseDeliverFlags(stderr, args)
	if err != nil {
		return err
	}
	dir, binary, dest, cleanup, err := deliverSetup(ctx, stderr, f.binary)
	if err != nil {
		return err
	}
	defer cleanup()

	rep := &deliverReport{Deliveries: f.deliveries, Concurrency: f.concurrency, Body: f.body}
	for _, driver := range f.drivers {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		row, lat, err := runDeliverDriver(ctx, stderr, f, binary, dir, driver, dest)
		if err != nil {
			return err
		}
		rep.Drains = append(rep.Drains, row)
		if lat != nil {
			rep.Latencies = append(rep.Latencies, *lat)
		}
	}
	if f.history > 0 && slices.Contains(f.drivers, "postgres") {
		rows, err := runClaimCheck(ctx, stderr, f)
		if err != nil {
			return err
		}
		rep.Claims = rows
	}
	rep.print(stdout)
	if rep.failed() {
		return errFailed
	}
	return nil
}

// rateFlag defines --destination-rate, the destinations' rate.
func rateFlag(fs *flag.FlagSet, rate *string) {
	fs.StringVar(rate, "destination-rate", "", "every destination's rate, such as 1000000/s; none when empty. "+
		"A destination with a rate is never leased at ingest, so its deliveries are all claimed")
}

// checkRate refuses a --destination-rate the relay's config would refuse.
func checkRate(rate string) error {
	if rate == "" {
		return nil
	}
	if _, err := config.ParseRate(rate); err != nil {
		return fmt.Errorf("%w: --destination-rate: %w", errUsage, err)
	}
	return nil
}

// driverList returns the drivers a --driver flag names.
func driverList(driver string) ([]string, error) {
	switch driver {
	case "sqlite", "postgres":
		return []string{driver}, nil
	case "both":
		return []string{"sqlite", "postgres"}, nil
	}
	return nil, fmt.Errorf("%w: --driver must be sqlite, postgres or both", errUsage)
}

// deliverSetup makes a scratch directory, finds or builds the relay binary
// into it and starts the no-op destination; cleanup undoes all of it.
func deliverSetup(ctx context.Context, stderr io.Writer, binaryFlag string) (dir, binary string, dest *noopDestination, cleanup func(), err error) {
	dir, binary, remove, err := scratch(ctx, stderr, binaryFlag, true)
	if err != nil {
		return "", "", nil, nil, err
	}
	if dest, err = startNoopDestination(); err != nil {
		remove()
		return "", "", nil, nil, err
	}
	return dir, binary, dest, func() { dest.close(); remove() }, nil
}

// runDeliverDriver prepares the deliveries on a fresh database, measures
// the plain client, starts the relay and times its drain, then measures
// latency on the idle relay.
func runDeliverDriver(ctx context.Context, stderr io.Writer, f deliverFlags, binary, dir, driver string, dest *noopDestination) (drainRow, *latencyRow, error) {
	name := "deliver-" + driver
	db, err := newBenchDB(ctx, driver, dir, name, f.postgresURL)
	if err != nil {
		return drainRow{}, nil, err
	}
	defer db.dropReporting(ctx, stderr)
	feed := newBodyFeed(f.body)
	row := drainRow{Driver: driver, Deliveries: int64(f.deliveries)}

	key, keys, err := payloadKey(f.encrypt)
	if err != nil {
		return row, nil, err
	}
	fmt.Fprintf(stderr, "%s: storing %d pending deliveries\n", driver, f.deliveries)
	start := time.Now()
	if err := prepareDeliveries(ctx, db.URL(), keys, feed, f.deliveries); err != nil {
		return row, nil, err
	}
	row.Prepare = time.Since(start)

	fmt.Fprintf(stderr, "%s: plain client, %d senders\n", driver, f.concurrency)
	row.LoadPlain = loadAverage()
	meter := startCPU(nil, proccpu.URLDatabase(db.URL()))
	plain, err := loadgen.Run(ctx, loadgen.Options{
		URL: dest.url + plainPath, Senders: f.concurrency, Duration: f.timeout,
		MaxRequests: int64(f.deliveries), Feed: feed, Client: loadgen.NewClient(f.concurrency),
	})
	if err != nil {
		return row, nil, err
	}
	row.Plain = plain.Rate()
	row.PlainCPU, row.PlainCPUOK = meter.stop()
	if plain.Acked != int64(f.deliveries) {
		row.Problems = append(row.Problems, fmt.Sprintf("plain client: %d of %d answered 200", plain.Acked, f.deliveries))
	}

	fmt.Fprintf(stderr, "%s: relay drains them\n", driver)
	dest.reset()
	token, extra, err := deliverConfig(dir, []string{dest.url + hooksPath}, f.concurrency, f.rate)
	if err != nil {
		return row, nil, err
	}
	secret := randomSecret()
	row.LoadRelay = loadAverage()
	p, err := startRelay(ctx, binary, dir, name, relayConfig{Database: db.URL(), LogLevel: f.logLevel, Extra: extra, Key: key}, secret)
	if err != nil {
		return row, nil, err
	}
	defer func() {
		if err := p.Stop(40 * time.Second); err != nil {
			fmt.Fprintf(stderr, "%s: relay did not exit 0: %v\n", driver, err)
		}
	}()
	meter = startCPU([]int{p.Pid()}, proccpu.URLDatabase(db.URL()))
	t, err := timeDrain(ctx, dest, token, row.Deliveries, f.timeout, p)
	if err != nil {
		return row, nil, err
	}
	row.RelayCPU, row.RelayCPUOK = meter.stop()
	row.Drain, row.Relay, row.Received = t.Drain, t.Rate, t.Received
	if note := t.note(row.Deliveries); note != "" {
		row.Problems = append(row.Problems, note)
	}
	if f.latencyEvents == 0 {
		return row, nil, nil
	}
	fmt.Fprintf(stderr, "%s: ingest-to-delivery latency, %d events %v apart\n", driver, f.latencyEvents, f.latencyGap)
	lat, err := measureLatency(ctx, p, db.URL(), dest, secret, f)
	if err != nil {
		return row, nil, err
	}
	lat.Driver = driver
	return row, &lat, nil
}

// prepareDeliveries migrates the database and stores n events, each with
// one pending delivery to the destination "noop", in batches as the
// receiver's group commit would, their payloads sealed under keys (nil:
// plain).
func prepareDeliveries(ctx context.Context, url string, keys *payloadcrypt.Ring, feed *bodyFeed, n int) error {
	st, err := storeopen.OpenWith(ctx, url, storeopen.Options{Keys: keys}, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	const batch = 1000
	for from := 0; from < n; from += batch {
		items := make([]store.IngestItem, 0, batch)
		for i := int64(from); i < int64(min(from+batch, n)); i++ {
			now := time.Now().UTC()
			items = append(items, store.IngestItem{
				Event: store.Event{
					ID:              ulid.Make().String(),
					Source:          "stripe",
					ProviderEventID: feed.providerID(i),
					IDOrigin:        store.IDFromBody,
					Type:            "invoice.paid",
					Body:            feed.body(i),
					ContentType:     "application/json",
					Headers:         map[string][]string{"Content-Type": {"application/json"}},
					ReceivedAt:      now,
				},
				Deliveries: []store.NewDelivery{{Destination: "noop"}},
			})
		}
		if _, err := st.Ingest(ctx, items); err != nil {
			return fmt.Errorf("store deliveries: %w", err)
		}
	}
	return nil
}

// deliverConfig writes an admin token and the destinations' signing secret
// into files in dir, and returns the token and the YAML of the token and
// of one push destination per URL — "noop" at the first, "noop2" at the
// second, and so on — each with the given concurrency and rate (none when
// empty), and the default timeout.
func deliverConfig(dir string, urls []string, concurrency int, rate string) (token, yaml string, err error) {
	token = randomSecret()
	tokenPath, secretPath := filepath.Join(dir, "admin-token"), filepath.Join(dir, "noop-secret")
	if err := os.WriteFile(tokenPath, []byte(token), 0o600); err != nil {
		return "", "", fmt.Errorf("write token file: %w", err)
	}
	if err := os.WriteFile(secretPath, []byte("whsec_"+"YmVuY2gtbm9vcC1zaWduaW5nLXNlY3JldA=="), 0o600); err != nil {
		return "", "", fmt.Errorf("write secret file: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tokens:\n  - {name: bench, role: admin, secret: \"file:%s\"}\ndestinations:\n", tokenPath)
	for i, url := range urls {
		fmt.Fprintf(&b, `  - name: %s
    url: %q
    secret: "file:%s"
    sources: [stripe]
    concurrency: %d
`, destinationName(i), url, secretPath, concurrency)
		if rate != "" {
			fmt.Fprintf(&b, "    rate: %s\n", rate)
		}
	}
	return token, b.String(), nil
}

// destinationName is the name deliverConfig gives its i-th destination.
func destinationName(i int) string {
	if i == 0 {
		return "noop"
	}
	return fmt.Sprintf("noop%d", i+1)
}

// drainTiming is what timeDrain measured.
type drainTiming struct {
	// Drain runs from the first delivery's arrival to the stats counting
	// every delivery done.
	Drain time.Duration
	// Rate is deliveries per second over Drain.
	Rate float64
	// Received counts the deliveries that arrived, more than were prepared
	// when one was delivered twice.
	Received int64
}

// note says, when more deliveries arrived than the want prepared, how
// many; "" otherwise.
func (t drainTiming) note(want int64) string {
	if t.Received <= want {
		return ""
	}
	return fmt.Sprintf("note: %d deliveries arrived for %d events", t.Received, want)
}

// timeDrain waits until the destination has received want prepared
// deliveries and the stats of the first relay count them all done, and
// returns the time from the first delivery's arrival to that count. The
// relays are those delivering them, one or several processes on one
// database; it fails when any of them exits, ctx ends, or timeout passes.
func timeDrain(ctx context.Context, dest *noopDestination, token string, want int64, timeout time.Duration, relays ...*relayproc.Relay) (drainTiming, error) {
	deadline := time.Now().Add(timeout)
	for dest.received.Load() < want {
		if err := pause(ctx, deadline, 10*time.Millisecond, relays...); err != nil {
			return drainTiming{}, fmt.Errorf("drain: %d of %d received: %w", dest.received.Load(), want, err)
		}
	}
	for {
		done, err := doneDeliveries(ctx, relays[0].Options.Admin, token)
		if err != nil {
			return drainTiming{}, fmt.Errorf("drain: %w", err)
		}
		if done >= want {
			break
		}
		if err := pause(ctx, deadline, 20*time.Millisecond, relays...); err != nil {
			return drainTiming{}, fmt.Errorf("drain: %d of %d done: %w", done, want, err)
		}
	}
	first, _ := dest.firstDelivery()
	t := drainTiming{Drain: time.Since(first), Received: dest.received.Load()}
	t.Rate = float64(want) / t.Drain.Seconds()
	return t, nil
}

// pause sleeps d, or fails when ctx ends, one of the relays has exited
// before or during the sleep, or the deadline has passed. The sleeps are
// short, so an exit is noticed at most d late.
func pause(ctx context.Context, deadline time.Time, d time.Duration, relays ...*relayproc.Relay) error {
	if time.Now().After(deadline) {
		return fmt.Errorf("not finished by the deadline")
	}
	if err := exitedRelay(relays); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
	}
	return exitedRelay(relays)
}

// exitedRelay returns an error with the log of the first relay that has
// exited, or nil while all run.
func exitedRelay(relays []*relayproc.Relay) error {
	for _, p := range relays {
		if p.Exited() {
			return fmt.Errorf("relay exited: %v; log:\n%s", p.Err(), p.Tail(20))
		}
	}
	return nil
}

// doneDeliveries reads the done deliveries of every destination, summed,
// from the relay's GET /api/v1/stats.
func doneDeliveries(ctx context.Context, admin, token string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/api/v1/stats", nil)
	if err != nil {
		return 0, fmt.Errorf("build stats request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return 0, fmt.Errorf("get stats: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("get stats: status %d", resp.StatusCode)
	}
	var s struct {
		Destinations map[string]map[string]json.Number `json:"destinations"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return 0, fmt.Errorf("decode stats: %w", err)
	}
	if len(s.Destinations) == 0 {
		return 0, fmt.Errorf("stats: no destinations")
	}
	var total int64
	for name, counts := range s.Destinations {
		n, err := counts["done"].Int64()
		if err != nil {
			return 0, fmt.Errorf("stats: no done count for %s: %w", name, err)
		}
		total += n
	}
	return total, nil
}
