package sqlstore

// A delivery leased at ingest whose row is deferred (store.Lease.Deferred)
// has no row until its outcome writes it: milliseconds normally, up to its
// lease's end after a crash. The reads below add it from delivery_leases
// as the row its lease stands for — processing, its first attempt under
// way since its event's ingest — so that stats, an event's deliveries, a
// delivery by id and the events list show every delivery from its event's
// ingest on. Each reads the leases of the deliveries in flight alone,
// however long the history.

// deferredInFlight is the FROM item x of the deferred deliveries whose
// rows are not yet written: (id, event_id, destination, lease_until).
// Whether a row is written is one probe of the deliveries' key for each:
// a scalar subquery, which PostgreSQL runs per row, where it would plan
// NOT EXISTS as an anti-join, free to hash every delivery of the history
// when the leases' statistics are stale (they churn by the second).
func deferredInFlight(d Dialect) string {
	return `(SELECT l.* FROM (` + d.DeferredLeases + `) AS l
	WHERE (SELECT w.id FROM hookrelay.deliveries w WHERE w.id = l.id) IS NULL) AS x`
}

// deferredCounts is the statement whose rows are (destination,
// 'processing', n): the deferred deliveries in flight, by destination.
func deferredCounts(d Dialect) string {
	return `SELECT x.destination, 'processing', count(*) FROM ` + deferredInFlight(d) + `
GROUP BY x.destination`
}

// deferredDeliveries selects the deferred deliveries in flight as
// deliveryColumns, as x joined to its event e, ready for a WHERE: the row
// the sweep of an ended lease would write (see the drivers' writeDeferred),
// with the event's receive time for its creation and last change. A
// purge writes the rows of its events' deferred deliveries, purged; the
// join leaves out any it has not yet. It follows a SELECT of the same
// columns from hookrelay.deliveries in a UNION ALL, which gives its
// columns their types.
func deferredDeliveries(d Dialect) string {
	return `SELECT x.id, x.event_id, x.destination, 'processing', 1, 0, '',
	e.received_at, x.lease_until, '', 0, e.received_at, e.received_at, NULL
FROM ` + deferredInFlight(d) + ` JOIN hookrelay.events e ON e.id = x.event_id AND e.purged_at IS NULL`
}
