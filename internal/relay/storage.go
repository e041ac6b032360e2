package relay

import (
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/groupcommit"
)

// commitOptions fits group commit to the driver. SQLite has one writer:
// two committers let one batch's statements run while the previous batch
// waits for its WAL fsync. PostgreSQL overlaps a few commits and shares
// their fsyncs itself; each of its batches is encoded whole into the
// connection's buffer, so large bodies are batched by fewer bytes. On
// both, a committer waits for company while the store is busy
// (ingestLinger, ingestBusyWithin).
func commitOptions(url string) groupcommit.Options {
	opts := groupcommit.Options{Committers: 4, MaxBatchBytes: 4 << 20}
	if strings.HasPrefix(url, "sqlite:") {
		opts = groupcommit.Options{Committers: 2}
	}
	opts.Linger, opts.LingerWhenBusy, opts.BusyWithin = ingestLinger, true, ingestBusyWithin
	return opts
}

// ingestLinger is how long a committer of ingested events, finding fewer
// than a full batch while the store is busy, waits for more. At a
// moderate rate each transaction otherwise holds one or two events, and
// every one pays a commit's fixed cost — its round trips, its WAL flush,
// the wake-ups of the processes it passes through — for so few. An event
// that finds the store idle is written at once, so an idle relay answers
// as fast as before (groupcommit.Options.LingerWhenBusy).
const ingestLinger = 2 * time.Millisecond

// ingestBusyWithin is how soon after the previous batch an event counts
// the store busy even when no commit is under way: events that arrive
// 10 ms apart or closer, 100 a second and more, wait up to ingestLinger
// for company. At 1 600 events/s a PostgreSQL commit of two events was
// often over before the next arrived, and without it the transactions
// held 2.3 events on average; with it, 4.7.
const ingestBusyWithin = 10 * time.Millisecond

// deliveryOptions fits the delivery engine's store calls to the driver.
// SQLite serializes claims and outcomes on its one writer, so a second
// claim in flight only keeps the writer busy while the first's deliveries
// are handed out. A PostgreSQL claim takes a few round trips and a
// synchronous commit, so three in flight keep the senders fed, and two
// outcome batches can commit at once.
func deliveryOptions(url string) (claimers int, outcomes groupcommit.Options) {
	if strings.HasPrefix(url, "sqlite:") {
		return 2, groupcommit.Options{Committers: 1}
	}
	return 3, groupcommit.Options{Committers: 2}
}
