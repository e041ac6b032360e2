package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

// pacedPlain is the plain client's run at the rate a sustained run
// delivered: the same bodies posted to the same no-op destination, paced
// at the events' rate times the destinations, with the relay's push
// concurrency as senders.
type pacedPlain struct {
	Rate     float64 // requests/s offered
	Requests int64   // answered 200
	// CPU is the machine's use over the run; its Bench share is the
	// client's and the destination's, both in this process.
	CPU   cpuUse
	CPUOK bool
}

// perRequest returns this process's CPU time per request, in µs: the
// plain client and the destination, which is all of a plain request's
// work. ok is false when the run was not measured.
func (p pacedPlain) perRequest() (float64, bool) {
	if !p.CPUOK || p.Requests == 0 {
		return 0, false
	}
	return p.CPU.perItem(p.CPU.Bench, p.Requests), true
}

// pacedPlainDuration is how long the paced plain client runs: a quarter of
// the sustained run's duration, within 5 and 15 s.
func pacedPlainDuration(sustained time.Duration) time.Duration {
	return min(max(sustained/4, 5*time.Second), 15*time.Second)
}

// runPacedPlain posts the plain client's requests at rate per second for
// d to the no-op destination and measures their CPU. A request's cost
// depends on the rate: at a fixed pace each one wakes its sender and the
// destination's connection, where a client sending as fast as it can, as
// in the drain, shares each wake-up among several; the delivery's cost in
// a sustained run is measured at its pace, and so is this.
func runPacedPlain(ctx context.Context, stderr io.Writer, dest *noopDestination, body, senders int, rate float64, d time.Duration) (pacedPlain, error) {
	fmt.Fprintf(stderr, "plain client paced at %.0f requests/s for %v, %d senders\n", rate, d, senders)
	p := pacedPlain{Rate: rate}
	meter := startCPU(nil, "")
	res, err := loadgen.Run(ctx, loadgen.Options{
		URL: dest.url + plainPath, Senders: senders, Duration: d, Rate: rate,
		Feed: newBodyFeed(body), Client: loadgen.NewClient(senders),
	})
	if err != nil {
		return p, err
	}
	p.CPU, p.CPUOK = meter.stop()
	p.Requests = res.Acked
	if res.Failed() > 0 {
		return p, fmt.Errorf("paced plain client: %d requests not answered 200: %s", res.Failed(), errorSummary(res.Statuses, res.Errors))
	}
	return p, nil
}
