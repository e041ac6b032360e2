package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

// walReport is the wal command's output: the SQLite WAL's size while the
// relay ingests and delivers at full speed, and once the load has stopped,
// beside the database file's size.
type walReport struct {
	Senders  int            `json:"senders"`
	Body     int            `json:"body_bytes"`
	Duration time.Duration  `json:"duration_ns"`
	Result   loadgen.Result `json:"result"`
	ReqPerS  float64        `json:"req_per_s"`
	// PeakWAL is the largest WAL seen during the load; EndWAL its size when
	// the load stopped; IdleWAL its size --idle later.
	PeakWAL int64 `json:"peak_wal_bytes"`
	EndWAL  int64 `json:"end_wal_bytes"`
	IdleWAL int64 `json:"idle_wal_bytes"`
	// Emptied is how long after the load the WAL was first seen empty; 0
	// when it never was within --idle.
	Emptied time.Duration `json:"emptied_after_ns"`
	// Database is the database file's size when the load stopped.
	Database int64    `json:"database_bytes"`
	Stored   int64    `json:"stored"`
	Load     string   `json:"load_average"`
	Problems []string `json:"problems,omitempty"`
}

// runWAL drives a SQLite relay that also delivers every event to the no-op
// target, samples its WAL file's size, then watches it while idle.
func runWAL(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("wal", stderr)
	senders := fs.Int("senders", 32, "concurrent senders")
	duration := fs.Duration("duration", 40*time.Second, "how long the load lasts")
	idle := fs.Duration("idle", 10*time.Second, "how long the WAL is watched after the load")
	body := fs.Int("body", 2048, "body size in bytes")
	binary := fs.String("binary", "", "hookrelay binary to run; default: build ./cmd/hookrelay")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *senders <= 0 || *duration <= 0 || *idle <= 0 || *body <= 0 {
		return fmt.Errorf("%w: --senders, --duration, --idle and --body must be positive", errUsage)
	}
	dir, bin, remove, err := scratch(ctx, stderr, *binary, true)
	if err != nil {
		return err
	}
	defer remove()
	noop, noopAddr, err := startNoop(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = noop.Stop(10 * time.Second) }()
	db, err := newBenchDB(ctx, "sqlite", dir, "wal", "")
	if err != nil {
		return err
	}
	walPath := strings.TrimPrefix(db.URL(), "sqlite:") + "-wal"
	secret := randomSecret()
	extra := fmt.Sprintf("destinations:\n  - name: sink\n    url: http://%s/hook\n    secret: whsec_%s\n    sources: [stripe]\n    concurrency: 16\n",
		noopAddr, base64.StdEncoding.EncodeToString([]byte(secret)))
	p, err := startRelay(ctx, bin, dir, "wal", relayConfig{Database: db.URL(), LogLevel: "warn", Extra: extra}, secret)
	if err != nil {
		return err
	}
	feed, err := loadgen.NewStripeFeed(secret, *body)
	if err != nil {
		_ = p.Stop(40 * time.Second)
		return err
	}
	rep := &walReport{Senders: *senders, Body: *body, Duration: *duration}
	fmt.Fprintf(stderr, "relay sqlite: %d senders for %v, then %v idle\n", *senders, *duration, *idle)
	sampler := sampleSize(walPath, 50*time.Millisecond)
	rep.Result, err = loadgen.Run(ctx, loadgen.Options{URL: p.IngestURL("stripe"), Senders: *senders, Duration: *duration, Feed: feed})
	rep.PeakWAL = sampler.Stop()
	if err != nil {
		_ = p.Stop(40 * time.Second)
		return err
	}
	rep.ReqPerS = rep.Result.Rate()
	rep.EndWAL = fileSize(walPath)
	rep.Database = fileSize(strings.TrimPrefix(db.URL(), "sqlite:"))
	start := time.Now()
	for time.Since(start) < *idle {
		if rep.IdleWAL = fileSize(walPath); rep.IdleWAL == 0 && rep.Emptied == 0 {
			rep.Emptied = time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := p.Stop(40 * time.Second); err != nil {
		rep.Problems = append(rep.Problems, fmt.Sprintf("relay did not exit 0 on SIGTERM: %v; log:\n%s", err, p.Tail(10)))
	}
	if rep.Stored, err = db.CountEvents(context.WithoutCancel(ctx)); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	rep.Problems = append(rep.Problems, checkStored(rep.Stored, rep.Result.Acked, rep.Result.Sent-rep.Result.Acked)...)
	rep.Load = loadAverage()
	if err := rep.print(stdout, *asJSON); err != nil {
		return err
	}
	for _, p := range rep.Problems {
		if !strings.HasPrefix(p, "note:") {
			return errFailed
		}
	}
	return nil
}

func (r *walReport) print(w io.Writer, asJSON bool) error {
	if asJSON {
		return writeJSON(w, r)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "senders\tbody\tduration\treq/s\tpeak WAL\tWAL at end\tWAL after idle\temptied after\tdatabase\tstored\tload\n")
	emptied := "never"
	if r.Emptied > 0 || r.IdleWAL == 0 {
		emptied = roundDur(r.Emptied).String()
	}
	fmt.Fprintf(tw, "%d\t%d B\t%v\t%.0f\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Senders, r.Body, r.Duration, r.ReqPerS,
		mib(r.PeakWAL), mib(r.EndWAL), mib(r.IdleWAL), emptied, mib(r.Database), r.Stored, r.Load)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, "PROBLEM:", p)
	}
	return nil
}

// sizeSampler records the largest size a file reaches until stopped.
type sizeSampler struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak int64 // written by the sampling goroutine, read after Stop
}

func sampleSize(path string, every time.Duration) *sizeSampler {
	s := &sizeSampler{stop: make(chan struct{})}
	s.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.peak = max(s.peak, fileSize(path))
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	})
	return s
}

// Stop ends the sampling and returns the peak.
func (s *sizeSampler) Stop() int64 {
	close(s.stop)
	s.wg.Wait()
	return s.peak
}

// fileSize returns the size of the file at path, 0 when it is missing.
func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}
