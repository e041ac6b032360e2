package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay"
)

// orders is the handler destination: the stripe source's invoice.paid
// events, each marking its order paid.
var orders = hookrelay.Destination{
	Name:    "orders",
	Sources: []string{"stripe"},
	Types:   []string{"invoice.paid"},
	Timeout: 2 * time.Second,
}

// relayOptions are what the application sets of hookrelay beyond its
// database.
type relayOptions struct {
	// configFile is -config: a hookrelay YAML config whose sources
	// replace the built-in stripe source.
	configFile string
	// stripeSecret signs the built-in stripe source's webhooks.
	stripeSecret string
	// handler handles the orders destination: markPaid, wrapped.
	handler hookrelay.HandlerFunc
}

// newRelay returns hookrelay on the application's pool or handle, with
// the orders handler destination, not started.
func newRelay(a *app, opts relayOptions, logger *slog.Logger) (*hookrelay.Relay, error) {
	cfg := a.relayConfig()
	cfg.File, cfg.Logger = opts.configFile, logger
	if opts.configFile == "" {
		cfg.Sources = []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{opts.stripeSecret}}}
	}
	relay, err := hookrelay.New(cfg)
	if err != nil {
		return nil, err
	}
	relay.Handle(orders, opts.handler)
	return relay, nil
}

// newMux returns the application's public routes: hookrelay's receiver
// next to its own.
func newMux(relay *hookrelay.Relay, a *app) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/webhooks/", relay.Receiver()) // POST /webhooks/stripe
	mux.HandleFunc("GET /orders", a.listOrders)
	return mux
}
