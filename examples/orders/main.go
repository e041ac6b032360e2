// Command orders is an application that embeds hookrelay: it receives
// Stripe's webhooks on its own HTTP server, stores them in its own
// database — through its own pgx pool or database/sql handle, its tables
// and hookrelay's migrated with golang-migrate — and marks its orders paid
// from invoice.paid events inside the transaction in which hookrelay marks
// each event handled, so a payment is counted exactly once, whatever
// crashes. See README.md.
//
//	STRIPE_WEBHOOK_SECRET=whsec_dGVzdC1zZWNyZXQ go run ./examples/orders
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "orders:", err)
		os.Exit(1)
	}
}

func run() error {
	database := flag.String("database", "sqlite:orders.db", `the application's database: "sqlite:PATH" or "postgres://…"`)
	listen := flag.String("listen", "127.0.0.1:8080", "public address: POST /webhooks/stripe, GET /orders")
	adminListen := flag.String("admin-listen", "127.0.0.1:8081", "operators' address: hookrelay's admin API, console, /readyz")
	configFile := flag.String("config", "", "optional hookrelay YAML config: its sources replace the built-in stripe source, and its push and pull destinations, tokens and alerts are used")
	handlerDelay := flag.Duration("handler-delay", 0, "hold each handler call this long inside its transaction, as a slow handler would")
	flag.Parse()

	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// 1. The application's database: one pgx pool on PostgreSQL, one
	// database/sql handle on SQLite, for its own queries and hookrelay's.
	app, err := openApp(ctx, *database)
	if err != nil {
		return err
	}
	defer app.Close()

	// 2. Its tables and hookrelay's, with golang-migrate: two sets of
	// migrations, each with a version table of its own.
	if err := app.migrate(logger); err != nil {
		return err
	}

	// 3. hookrelay on that pool or handle, with the handler destination:
	// invoice.paid marks the order paid. Start applies no migration and
	// refuses a database that lacks one.
	relay, err := newRelay(app, relayOptions{
		configFile:   *configFile,
		stripeSecret: os.Getenv("STRIPE_WEBHOOK_SECRET"),
		handler:      logged(logger, slowed(*handlerDelay, markPaid)),
	}, logger)
	if err != nil {
		return err
	}
	if err := relay.Start(ctx); err != nil {
		return err
	}
	defer relay.Close() // on the way out early; after Shutdown, a no-op

	// 4. One mux: hookrelay's receiver next to the application's routes.
	public := &http.Server{Addr: *listen, Handler: newMux(relay, app), ReadHeaderTimeout: 5 * time.Second}
	admin := &http.Server{Addr: *adminListen, Handler: relay.Admin(), ReadHeaderTimeout: 5 * time.Second}

	errs := make(chan error, 2)
	for _, srv := range []*http.Server{public, admin} {
		go func() {
			if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
				errs <- err
			}
		}()
	}
	logger.Info("orders serving", "listen", *listen, "admin_listen", *adminListen)
	select {
	case <-ctx.Done():
	case err = <-errs:
	}

	// 5. Stop taking webhooks, then stop hookrelay: no handler starts from
	// then on, and those running get until the deadline to commit, after
	// which they are cancelled and roll back, their events handled again
	// at the next start.
	shutdown, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = errors.Join(err, public.Shutdown(shutdown), admin.Shutdown(shutdown))
	return errors.Join(err, relay.Shutdown(shutdown))
}
