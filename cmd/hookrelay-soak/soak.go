package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/providersim"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// soak runs one soak and prints its progress and figures to out. It
// returns errFailed when the promise was broken, another error when the
// soak could not run.
func soak(ctx context.Context, out io.Writer, o options) (err error) {
	dir, err := os.MkdirTemp("", "hookrelay-soak-")
	if err != nil {
		return fmt.Errorf("make work directory: %w", err)
	}
	defer func() {
		if err == nil && !o.keep {
			_ = os.RemoveAll(dir)
			return
		}
		fmt.Fprintf(out, "kept %s (config, relay.log, database when SQLite)\n", dir)
	}()
	// From here on an interrupt ends the kill loop early; the checks run.
	work := context.WithoutCancel(ctx)

	binary := o.hookrelay
	if binary == "" {
		if binary, err = relayproc.Build(work, dir, "./cmd/hookrelay"); err != nil {
			return err
		}
	}
	database := o.database
	if database == "" {
		database = "sqlite:" + filepath.Join(dir, "hookrelay.db")
	}
	dest, err := providersim.NewDestination(providersim.DestinationOptions{Secret: sinkSecret, Delay: o.hold})
	if err != nil {
		return err
	}
	defer dest.Close()

	p, err := relayproc.StartRelay(work, relayOptions(binary, dir, database, dest.URL()))
	if err != nil {
		return err
	}
	defer func() {
		select {
		case <-p.Done():
		default:
			p.Kill()
		}
	}()

	st, err := storeopen.Open(work, database, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer st.Close()
	if n, err := st.CountEvents(work, "stripe"); err != nil {
		return fmt.Errorf("count events: %w", err)
	} else if n > 0 {
		return fmt.Errorf("the database already holds %d events: give the soak an empty one", n)
	}

	sim, err := providersim.New(providersim.Options{
		URL: p.IngestURL("stripe"), Secret: stripeSecret,
		Concurrency: o.concurrency, Rate: o.rate,
		MaxAttempts: 100000, Deadline: max(5*time.Minute, 4*o.maxUptime),
	})
	if err != nil {
		return err
	}
	simCtx, cancelSim := context.WithCancel(work)
	defer cancelSim()
	start := time.Now()
	sim.Start(simCtx)
	fmt.Fprintf(out, "soaking %s for %v: %.0f events/s, a kill every %v to %v\n", driverName(database), o.duration, o.rate, o.minUptime, o.maxUptime)

	kills := 0
	for {
		life := o.minUptime + randDuration(o.maxUptime-o.minUptime)
		left := o.duration - time.Since(start)
		if left <= life {
			sleep(ctx, left)
			break
		}
		if !sleep(ctx, life) {
			break
		}
		p.Kill()
		kills++
		time.Sleep(randDuration(o.maxDowntime))
		q, err := relayproc.StartRelay(work, p.Options)
		if err != nil {
			return fmt.Errorf("restart after kill %d: %w", kills, err)
		}
		p = q
		fmt.Fprintf(out, "%8s  kill %d, restarted: %d events acknowledged\n",
			time.Since(start).Round(time.Second), kills, sim.Acked())
	}

	sim.Stop()
	waitCtx, cancelWait := context.WithTimeout(work, 5*time.Minute)
	defer cancelWait()
	rep, err := sim.Wait(waitCtx)
	if err != nil {
		return err
	}
	l, err := providersim.CheckStored(work, st, "stripe", rep, 0)
	if err != nil {
		return err
	}
	drainCtx, cancelDrain := context.WithTimeout(work, o.drain)
	defer cancelDrain()
	ds, err := l.WaitDrained(drainCtx, st, "sink", dest)
	if err != nil {
		return err
	}
	l.CheckDelivered(dest)
	if err := p.Stop(0); err != nil {
		l.Problems = append(l.Problems, err.Error())
	}
	if providersim.Live(ds) > 0 || ds.Counts[store.StatusDead] > 0 {
		l.Problems = append(l.Problems, fmt.Sprintf("deliveries not drained within %v: %v", o.drain, ds.Counts))
	}
	if l.Acked != l.Sent {
		l.Problems = append(l.Problems, fmt.Sprintf("%d of %d events were never acknowledged", l.Sent-l.Acked, l.Sent))
	}

	fmt.Fprintf(out, "RELIABILITY scenario=soak driver=%s %s kills=%d duration=%v attempts=%d\n",
		driverName(database), l.Figures, kills, time.Since(start).Round(time.Second), rep.Attempts())
	for _, pr := range l.Problems {
		fmt.Fprintln(out, "PROBLEM:", pr)
	}
	if len(l.Problems) > 0 {
		return errFailed
	}
	return nil
}

// sleep waits for d or ctx, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// randDuration returns a random duration in [0, d].
func randDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d) + 1))
}

func driverName(database string) string {
	if strings.HasPrefix(database, "sqlite:") {
		return "sqlite"
	}
	return "postgres"
}
