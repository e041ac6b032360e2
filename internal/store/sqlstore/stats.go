package sqlstore

import "github.com/hookrelay/hookrelay/internal/store"

// AddCount records in dests the count n of destination dest's deliveries
// in status, as Stats reads them row by row: a destination's first count
// brings its every status in, at 0 until counted.
func AddCount(dests map[string]store.DestinationStats, dest string, status store.DeliveryStatus, n int64) {
	d, ok := dests[dest]
	if !ok {
		d = store.DestinationStats{Counts: make(map[store.DeliveryStatus]int64, len(store.Statuses))}
		for _, st := range store.Statuses {
			d.Counts[st] = 0
		}
	}
	d.Counts[status] = n
	dests[dest] = d
}
