package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// maxRSS is the memory target: the relay stays under it with 256 concurrent
// 1 MiB bodies.
const maxRSS = 300 << 20

// memoryReport is the memory command's output.
type memoryReport struct {
	Driver      string                `json:"driver"`
	Concurrency int                   `json:"concurrency"`
	Body        int                   `json:"body_bytes"`
	Rounds      []loadgen.BurstResult `json:"rounds"`
	// PeakRSS is the highest VmRSS sampled every 20ms; HWM is the kernel's
	// VmHWM at the end, which also catches peaks between samples.
	PeakRSS  int64    `json:"peak_rss_bytes"`
	HWM      int64    `json:"vm_hwm_bytes"`
	Samples  int      `json:"samples"`
	Acked    int64    `json:"acked"`
	Stored   int64    `json:"stored"`
	Load     string   `json:"load_after"`
	Problems []string `json:"problems,omitempty"`
	Misses   []string `json:"target_misses,omitempty"`
}

func runMemory(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("memory", stderr)
	driver := fs.String("driver", "sqlite", "sqlite or postgres")
	concurrency := fs.Int("concurrency", 256, "posts sent at once per round")
	body := config.MiB
	fs.TextVar(&body, "body", body, "body size, as the config writes sizes: 2048, 512KiB, 1MiB (MB is 10^6 bytes)")
	rounds := fs.Int("rounds", 3, "rounds of concurrent posts")
	maxBody := 2 * config.MiB
	fs.TextVar(&maxBody, "max-body", maxBody, "the source's max_body in the relay's config")
	deadline := fs.Duration("deadline", 60*time.Second, "how long one round may retry shed posts")
	pgURL := fs.String("postgres-url", defaultPostgresURL, "PostgreSQL server on which a scratch schema is created and dropped")
	binary := fs.String("binary", "", "hookrelay binary to run; default: build ./cmd/hookrelay")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	checkTargets := fs.Bool("check-targets", false, "exit 1 when the peak RSS reaches 300 MiB")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if body <= 0 || maxBody <= 0 {
		return fmt.Errorf("%w: --body and --max-body must be positive", errUsage)
	}
	if *driver != "sqlite" && *driver != "postgres" {
		return fmt.Errorf("%w: --driver must be sqlite or postgres", errUsage)
	}
	if *concurrency <= 0 || *rounds <= 0 {
		return fmt.Errorf("%w: --concurrency and --rounds must be positive", errUsage)
	}

	dir, bin, remove, err := scratch(ctx, stderr, *binary, true)
	if err != nil {
		return err
	}
	defer remove()
	db, err := newBenchDB(ctx, *driver, dir, "memory", *pgURL)
	if err != nil {
		return err
	}
	defer db.dropReporting(ctx, stderr)
	secret := randomSecret()
	feed, err := loadgen.NewStripeFeed(secret, int(body))
	if err != nil {
		return err
	}
	p, err := startRelay(ctx, bin, dir, "memory", relayConfig{Database: db.URL(), LogLevel: "warn", MaxBody: maxBody}, secret)
	if err != nil {
		return err
	}
	rep := &memoryReport{Driver: *driver, Concurrency: *concurrency, Body: int(body)}
	sampler := sampleRSS(p.Pid(), 20*time.Millisecond)
	client := loadgen.NewClient(*concurrency)
	for r := range *rounds {
		fmt.Fprintf(stderr, "round %d: %d posts of %d bytes\n", r+1, *concurrency, feed.Size())
		res, err := loadgen.Burst(ctx, loadgen.BurstOptions{
			URL: p.IngestURL("stripe"), Concurrency: *concurrency, First: int64(r * *concurrency),
			Feed: feed, Deadline: *deadline, Client: client,
		})
		if err != nil {
			sampler.Stop()
			_ = p.Stop(40 * time.Second)
			return err
		}
		rep.Rounds = append(rep.Rounds, res)
		rep.Acked += res.Acked
	}
	client.CloseIdleConnections()
	rep.PeakRSS, rep.Samples = sampler.Stop()
	if _, hwm, err := relayproc.Memory(p.Pid()); err == nil {
		rep.HWM = hwm
	}
	if err := p.Stop(40 * time.Second); err != nil {
		rep.Problems = append(rep.Problems, fmt.Sprintf("relay did not exit 0 on SIGTERM: %v; log:\n%s", err, p.Tail(10)))
	}
	rep.Stored = -1
	if stored, err := db.CountEvents(context.WithoutCancel(ctx)); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	} else {
		rep.Stored = stored
	}
	var unknown int64
	for _, r := range rep.Rounds {
		unknown += r.Unacked
	}
	rep.Problems = append(rep.Problems, checkStored(rep.Stored, rep.Acked, unknown)...)
	if peak := max(rep.PeakRSS, rep.HWM); peak >= maxRSS {
		rep.Misses = append(rep.Misses, fmt.Sprintf("peak RSS %s >= %s", mib(peak), mib(maxRSS)))
	}
	rep.Load = loadAverage()
	if err := rep.print(stdout, *asJSON); err != nil {
		return err
	}
	for _, p := range rep.Problems {
		if !strings.HasPrefix(p, "note:") {
			return errFailed
		}
	}
	if *checkTargets && len(rep.Misses) > 0 {
		return errFailed
	}
	return nil
}

func (r *memoryReport) print(w io.Writer, asJSON bool) error {
	if asJSON {
		return writeJSON(w, r)
	}
	fmt.Fprintf(w, "memory: driver %s, %d concurrent posts of %d bytes, %d rounds\n", r.Driver, r.Concurrency, r.Body, len(r.Rounds))
	for i, res := range r.Rounds {
		fmt.Fprintf(w, "  round %d: acked %d (first try %d), unacked %d, 503/429 answers %d, retries %d, other %s, took %v, p50 %v, p99 %v\n",
			i+1, res.Acked, res.FirstTry, res.Unacked, res.Shed, res.Retries,
			errorSummary(withoutShed(res.Statuses), res.Errors), roundDur(res.Elapsed), roundDur(res.Latency.P50), roundDur(res.Latency.P99))
		if res.FirstError != "" {
			fmt.Fprintf(w, "    first error: %s\n", res.FirstError)
		}
	}
	fmt.Fprintf(w, "peak RSS %s (sampled every 20ms, %d samples), VmHWM %s; target < %s\n", mib(r.PeakRSS), r.Samples, mib(r.HWM), mib(maxRSS))
	fmt.Fprintf(w, "acknowledged %d, stored %d; load average %s\n", r.Acked, r.Stored, r.Load)
	for _, m := range r.Misses {
		fmt.Fprintf(w, "  MISSES %s\n", m)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
	return nil
}

// withoutShed returns statuses less the 503 and 429 answers, which are
// reported on their own.
func withoutShed(statuses map[int]int64) map[int]int64 {
	out := make(map[int]int64, len(statuses))
	for c, n := range statuses {
		if c != 503 && c != 429 {
			out[c] = n
		}
	}
	return out
}

// mib formats a byte count in MiB.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
