// Command bulkseed seeds a migrated database with one route's history,
// as bulkseed.Seed does, in a process of its own: the end-to-end tests
// build it once, without the race detector, and seed through it. (SQLite
// is pure Go here, and inside a test binary built with -race seeding
// 300 000 events takes many minutes instead of seconds.)
//
//	bulkseed -database sqlite:PATH -events 300000 -source bulk -type invoice.paid -destination archive -done
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
)

func main() {
	var (
		database = flag.String("database", "", "the database, as the config's database key takes it (sqlite:PATH or postgres://…)")
		events   = flag.Int("events", 0, "how many events")
		first    = flag.String("first", "", "the first event's receive time, RFC 3339 (default: a day ago)")
		step     = flag.Duration("step", time.Microsecond, "the time between two events' receive times")
		route    bulkseed.Route
		spec     bulkseed.Spec
	)
	flag.StringVar(&route.Source, "source", "", "the events' source")
	flag.StringVar(&route.Type, "type", "", "the events' type")
	flag.StringVar(&route.Destination, "destination", "", "the destination of each event's delivery; none when empty")
	flag.BoolVar(&spec.Done, "done", false, "make every delivery done; otherwise they are pending")
	flag.IntVar(&spec.BodyBytes, "body-bytes", 0, "pad every body with spaces to this many bytes")
	flag.Parse()

	spec.N, spec.Step, spec.Routes = *events, *step, []bulkseed.Route{route}
	spec.First = time.Now().Add(-24 * time.Hour)
	if *first != "" {
		t, err := time.Parse(time.RFC3339Nano, *first)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bulkseed: -first: %v\n", err)
			os.Exit(2)
		}
		spec.First = t
	}
	if *database == "" || route.Source == "" || route.Type == "" {
		fmt.Fprintln(os.Stderr, "bulkseed: -database, -source and -type are required")
		os.Exit(2)
	}
	if _, err := bulkseed.Seed(context.Background(), *database, spec); err != nil {
		fmt.Fprintf(os.Stderr, "bulkseed: %v\n", err)
		os.Exit(1)
	}
}
