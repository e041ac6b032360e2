// Package hookrelaytest tests an application's use of package hookrelay
// without a running relay: it runs a HandlerFunc on a synthetic event
// inside a real transaction of the application's database and says what a
// Relay would record, builds webhook requests signed as a source's
// provider signs them, for a Receiver served by an httptest.Server, and
// says which destinations an event fans out to.
//
// It runs the code a Relay runs — the guard on the handler's transaction,
// the classification of its result, the routing, the signature schemes —
// not a copy of it, so what a test sees here is what the relay does:
//
//	h := hookrelaytest.NewHandler(hookrelaytest.Postgres(pool), orders, markPaid)
//	res, err := h.Run(ctx, hookrelaytest.NewEvent("stripe", "invoice.paid", body))
//	// res.Outcome is hookrelaytest.Done: markPaid's writes are committed
//
// A handler's writes commit when it succeeds or skips, as they would with
// the relay's record of the delivery, and roll back otherwise. A test that
// keeps its database clean by running in a transaction it rolls back
// passes that transaction: Postgres takes a pgx.Tx, whose Begin nests a
// savepoint.
package hookrelaytest
