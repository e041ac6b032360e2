// Package hookrelay embeds the hookrelay webhook relay in a Go application,
// on the application's own database, with handlers whose effects are
// applied exactly once per delivery; a replay is a deliberate new
// delivery.
//
// A webhook is received by the application's own HTTP server, verified
// over the exact bytes that arrived, and stored in the application's
// database before the provider is answered 200. hookrelay then hands it to
// each handler destination that wants it, inside one database
// transaction:
//
//	claim the delivery → BEGIN → your handler's writes → mark done → COMMIT
//
// The handler's writes and hookrelay's record that the delivery is done
// commit together or not at all. A crash, a kill or a lost connection
// before the commit leaves neither — the event is handled again, from the
// start — and after it leaves both, so it is never handled twice. Delivery
// to an HTTP endpoint cannot promise that: an endpoint that applied an
// effect and then lost its answer gets the event again.
//
// # Use
//
//	r, err := hookrelay.New(hookrelay.Config{
//		Postgres: pool, // the application's *pgxpool.Pool; or SQLite: db, or Database: a URL
//		Sources: []hookrelay.Source{
//			{Name: "stripe", Verify: "stripe", Secrets: []string{os.Getenv("STRIPE_WEBHOOK_SECRET")}},
//		},
//	})
//	if err != nil { ... }
//	r.Handle(hookrelay.Destination{Name: "orders", Sources: []string{"stripe"}, Types: []string{"checkout.session.completed"}},
//		func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
//			_, err := tx.Postgres().Exec(ctx, `UPDATE orders SET paid_at = now() WHERE id = $1`, orderID(ev.Body))
//			return err
//		})
//	if err := r.Start(ctx); err != nil { ... }   // migrates hookrelay's tables (see Tables)
//	defer r.Close()                               // or Shutdown(ctx): see Shutdown
//
//	mux := http.NewServeMux()
//	mux.Handle("/webhooks/", r.Receiver())     // POST /webhooks/stripe
//	go http.ListenAndServe("127.0.0.1:8081", r.Admin()) // operators only: API and console
//
// examples/orders in the repository is a complete application built this
// way, runnable in two commands.
//
// # The transaction
//
// A handler gets the transaction as the database's own Go driver gives it:
// Tx.Postgres returns a pgx.Tx (github.com/jackc/pgx/v5), Tx.SQLite a
// SQLiteTx — the ExecContext, QueryContext, QueryRowContext and
// PrepareContext of a database/sql transaction (modernc.org/sqlite), which
// is what sqlc's DBTX takes; exactly one is set, by the Config's Database.
// hookrelay adds no query layer of its own: a team that writes pgx or
// database/sql keeps writing it, with its own helpers, its sqlc or its ORM,
// as long as they take that transaction. The alternatives were worse: one
// interface over both drivers is a new query API to learn and loses each
// driver's features (pgx's batches and COPY, its types), and one
// registration per driver doubles the API for what is, for any one
// application, a single database. An application that supports both can
// branch once in a helper (both drivers take $1 placeholders).
//
// The transaction is hookrelay's to end, as the handler's result says:
// the pgx.Tx's Commit and Rollback refuse with ErrManagedTx, a SQLiteTx has
// neither, and a handler that ends it anyway — Commit or Rollback called,
// or COMMIT, ROLLBACK or END sent as SQL — fails its attempt with
// ErrManagedTx whatever it returns, so that the delivery is never marked
// done apart from the handler's writes. (What SQL committed stays
// committed: only the driver's methods can be refused.) Nested
// transactions are the handler's own: pgx's Begin (a savepoint), and
// SAVEPOINT, RELEASE and ROLLBACK TO on SQLite.
//
// # Outcomes
//
// A HandlerFunc's result decides the delivery's outcome:
//
//	the handler returns        its writes    the delivery
//	nil                        committed     done
//	an error wrapping Skip     committed     skipped
//	Snooze(d), wrapped or not  rolled back   handed back, due in d; not an attempt
//	Permanent(err), or wrapped rolled back   dead now, with err's text
//	another error, or panics   rolled back   failed attempt: retried on the
//	                                         Destination's Backoff, dead after
//	                                         MaxAttempts
//	nothing: its process dies  rolled back   lost attempt (see below)
//
// A snooze is for an event that came too early (a payment before its
// order): it records no attempt, is not counted against MaxAttempts and
// takes no backoff, and the next call sees the same Event.Attempt. While it
// waits, the delivery shows in listings, the API and the console as it was
// before the call — pending, or failed after an earlier failure, with that
// failure's error — with its next attempt at the snooze's end. A permanent
// failure is for an event no retry can fix: one attempt, recorded with its
// text, and the delivery is dead.
//
// A handler that never returns because its process died (a crash,
// os.Exit, out of memory) used an attempt too: when its lease runs out
// (its Timeout plus 30 seconds) the next claim records it as lost ("worker
// lost: lease expired while the attempt ran") and hands the event out
// again, or marks it dead once its attempts reach MaxAttempts, so that an
// event whose handler takes the process down ends in the dead letters,
// not in a crash loop.
//
// Every outcome is recorded like a push's: listed by `hookrelay events`,
// counted by stats and metrics, shown in the console, dead letters
// alerted. Replay and backfill re-arm handler deliveries as any other: the
// handler runs again, with Event.ReplayCount counting the replays, and its
// effects apply again — exactly once holds per delivery, and a replay is a
// deliberate new delivery. A replay's dry run and its confirmations, in the
// API, the CLI and the console, say how many handler deliveries it would
// re-arm.
// Ordering keys hold one key's deliveries to one at a time, in the order
// the events occurred; a snoozed or failed delivery keeps holding its key.
//
// A handler should do its work through tx alone. A call to another
// service from a handler is made again when the transaction rolls back or
// the process dies before the commit; keep such calls idempotent, or
// record the intent in tx and make the call elsewhere.
//
// # Shutdown
//
// Relay.Shutdown(ctx) stops taking work at once: from the call on no
// handler starts and no delivery is claimed (one already claimed goes back
// to the queue unattempted). The handlers running finish and commit until
// ctx ends; then their contexts are cancelled, they roll back, and their
// events go back to the queue, not counted as attempts, to be handled at
// the next start — none lost, none handled twice. Close is Shutdown with
// CloseTimeout. A handler's context carries the values of the context
// Start was given, not its cancellation, and ends at the Destination's
// Timeout or when Shutdown gives up waiting, whichever comes first.
//
// # Keep handlers short
//
// The transaction holds a database connection while the handler runs. On
// SQLite it holds the only writer: webhooks received meanwhile wait for
// the commit before they are stored and answered (a handler that holds it
// for seconds makes them time out, answered 503, which providers retry),
// and handlers run one at a time. A handler must not write through another connection to the
// same SQLite file — that connection would wait for the writer the
// handler holds — and must not wait for something that itself needs to
// write, such as a webhook posted to its own Receiver. Each call is
// bounded by the Destination's Timeout.
//
// # Tables
//
// hookrelay's tables, functions and migrations table live apart from the
// application's: in a PostgreSQL schema of their own (Config.Schema,
// "hookrelay" by default), with the hookrelay_ prefix on SQLite. Every
// statement names them so; the pool's search_path does not matter, and
// nothing hookrelay creates can collide with the application's names.
// Start applies hookrelay's migrations, unless Config.ManualMigrations says
// the application does: with Relay.Migrate, or with its own migration
// tool (golang-migrate, goose, atlas) from the SQL that Migrations returns
// and `hookrelay migrate export` writes; Start then refuses a database
// that lacks one, naming the fix. The first migration after an upgrade
// from a version that kept the tables beside the application's moves them
// into their schema.
//
// # Several replicas
//
// Replicas of an application share its database. At Start a Relay
// registers its handler destinations (name, sources, types, ordering key)
// in the table handler_destinations; every Relay on the database reads the
// registered ones every second and fans events out to them as to its own,
// and claims only the deliveries of those it declares. So during a rolling
// deploy that adds a handler destination, an event received by an old
// replica, which lacks its code, still gets its delivery, and a new replica
// handles it; the registering replica backfills the events routed before
// the others read its registration. docs/library.md in the repository
// gives the upgrade rule, removing a handler destination included.
//
// # Mounting and testing
//
// ReceiverFor mounts the receiver at any path of the application's mux,
// the source of each request from a path value (SourceFromPath) or fixed
// (FixedSource). Package hookrelaytest tests an application's use of the
// relay without a server, with the relay's own code: it runs a handler on
// a synthetic event inside a transaction of the application's database
// and says what the relay would record, signs requests as a source's
// provider does, and says which destinations an event fans out to.
//
// # Operations
//
// What the admin API does, an application does in Go, between Start and
// Shutdown: ListEvents, Event, ListDeliveries and Delivery read; Replay,
// RetryDead and Backfill re-arm or create deliveries, or run as jobs with
// StartReplay and StartBackfill, which WaitJob waits for; Pause, Resume
// and SkipDelivery act on the queue; Stats counts. Each does what its
// route does, audit log included (WithActor names who asked).
// Config.OnDead and Config.OnAttemptFailed tell the application of every
// dead letter and failed attempt, whatever the destination's kind, for
// its alerting; Config.Registerer puts hookrelay's metrics on the
// application's registry; Config.Tokens and Config.DisableConsole say who
// may use Admin and whether it serves the console.
//
// # Beside hookrelay serve
//
// The relay embedded here is the one `hookrelay serve` runs: the same
// ingest contract, storage, delivery engine and admin API. Config.File
// takes a serve configuration, so push and pull destinations, tokens,
// retention and alerts work as documented in the README. Handler
// destinations run only in the application that declares them.
package hookrelay
