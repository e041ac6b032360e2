package hookrelay

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// Config says where hookrelay keeps its tables and which webhooks it takes.
// Handler destinations are not part of it: Relay.Handle declares them.
type Config struct {
	// Database is the application's own database, where hookrelay keeps its
	// tables next to the application's: "sqlite:PATH" (a file name) or
	// "postgres://user@host:5432/db". Handlers run in transactions on it,
	// so what they write commits with hookrelay's record of the delivery.
	// When File is set too, Database overrides the file's database.
	Database string

	// Postgres, in place of Database, is the application's own pgx pool:
	// hookrelay runs on it as it is — it changes none of its settings and
	// Shutdown leaves it open — and handlers' transactions come from it.
	Postgres *pgxpool.Pool

	// SQLite, in place of Database, is the application's database/sql
	// handle on a SQLite file (modernc.org/sqlite). hookrelay leaves the
	// handle as it is and opens connections of its own to the file — one
	// writer, in WAL mode, on which handlers' transactions run — so the
	// application's own writes take turns with them (see the library
	// guide).
	SQLite *sql.DB

	// Schema is the PostgreSQL schema hookrelay keeps its tables in,
	// apart from the application's; its migrations create it. Empty means
	// "hookrelay", or the first schema of a search_path the Database URL
	// sets. On SQLite the tables are named hookrelay_*.
	Schema string

	// ManualMigrations has Start apply no migration and refuse, naming
	// the fix, a database that lacks one: the application applies them,
	// with Migrate or with its own migration tool from the SQL Migrations
	// returns.
	ManualMigrations bool

	// File, when set, is a hookrelay YAML configuration, as `hookrelay
	// serve` reads it: its sources, push and pull destinations, tokens
	// (for Admin), retention and alerts are used; its listen addresses
	// and log settings are not. ${NAME} values are expanded from the
	// environment.
	File string

	// Sources are the webhook senders, added to those of File.
	Sources []Source

	// Logger receives hookrelay's logs: ids, types and outcomes, never
	// payloads or secrets. Nil discards them.
	Logger *slog.Logger

	// Operations: what an application sets in code of what it watches
	// and who operates it (see also the operations methods of Relay).

	// OnDead, when set, is called once for every delivery that goes dead
	// — its attempts run out, a Permanent failure, or a last attempt
	// whose process died — whatever its destination (a handler, a push
	// URL or a pull queue), by the process that recorded it: for the
	// application's alerting. It is called after the outcome committed,
	// from a goroutine of hookrelay's, one call at a time with
	// OnAttemptFailed, so that a slow callback never slows delivery; a
	// call that finds CallbackQueueSize calls waiting is dropped, counted
	// by hookrelay_callbacks_dropped_total and logged. Shutdown makes the
	// calls still queued while its context lasts. A panic in it is logged.
	OnDead func(DeadLetter)

	// OnAttemptFailed, when set, is called as OnDead is for every attempt
	// recorded as failed: a handler's error or panic, a push answered
	// other than 2xx or not at all, a pull consumer's failed ack — the
	// last attempt of a delivery that goes dead included, before OnDead.
	// An attempt whose process died is not: no process saw it fail (the
	// next claim records it as lost, and OnDead is called when it was
	// the last).
	OnAttemptFailed func(FailedAttempt)

	// Registerer, when set, receives hookrelay's metrics, every one named
	// hookrelay_…, so that they never collide with the application's own:
	// the application's /metrics then serves them. Admin's /metrics goes
	// on serving them too, with the Go runtime's and the process's, for
	// the dashboards of `hookrelay serve`: scrape one of the two, not
	// both. Two Relays of one process need a registerer each (e.g.
	// prometheus.WrapRegistererWith a label of their own); Shutdown
	// unregisters hookrelay's collectors, so that a Relay started after
	// it can register them again.
	Registerer prometheus.Registerer

	// Tokens are bearer tokens of the admin API and the console that
	// Admin serves, added to the tokens of File; each is checked as the
	// YAML's tokens section checks its entries, and an empty Secret is
	// refused.
	Tokens []Token

	// DisableConsole leaves the web console out of Admin: its pages answer
	// 404, while the admin API, /healthz, /readyz and /metrics stay.
	DisableConsole bool
}

// Source is one webhook sender: POST /webhooks/{Name} takes its events,
// verified with Verify over the exact bytes that arrived.
type Source struct {
	// Name is the {source} of the URL: lower-case letters, digits, '-'
	// and '_'.
	Name string
	// Verify names the signature scheme: "stripe", "github", "shopify",
	// "standard" (Standard Webhooks, Svix, Clerk, Resend), "slack",
	// "paddle", "linear", ... — every scheme of the README's table.
	// Schemes that need more settings than a secret are set in File.
	Verify string
	// Secrets are the active signing secrets; during a rotation, several.
	Secrets []string
	// Tolerance is how far a signed timestamp may be from now; zero means
	// the provider's own default (one minute for Linear, five seconds for
	// Paddle, five minutes for the others).
	Tolerance time.Duration
	// MaxBody is the largest body taken, in bytes; zero means 1 MiB.
	MaxBody int64
}

// Destination declares a handler destination: which events it receives
// and how its failures are retried. Zero fields take the defaults of
// every destination.
type Destination struct {
	// Name names the destination in listings, stats, replays and the
	// console: lower-case letters, digits, '-' and '_'.
	Name string
	// Sources lists the sources whose events it receives.
	Sources []string
	// Types are event-type globs (path.Match syntax, "invoice.*"); none
	// means every type.
	Types []string
	// OrderingKey is a dotted path into the JSON body
	// ("data.object.customer"): deliveries with the same value are handled
	// one at a time, in the order the events occurred, and one that
	// fails holds back the later ones of its key until it is done or dead.
	OrderingKey string
	// MaxAttempts counts every try, the first included; zero means 7.
	MaxAttempts int
	// Backoff is the wait before each retry, the last step repeating;
	// none means 10s, 1m, 5m, 30m, 2h, 8h.
	Backoff []time.Duration
	// Timeout bounds one call of the handler, through its context; zero
	// means 10 seconds.
	Timeout time.Duration
	// Concurrency is how many deliveries are handled at once; zero means
	// 4. On SQLite, where a handler's transaction holds the only writer,
	// handlers run one at a time whatever it says.
	Concurrency int
}

// internalConfig builds the relay's configuration from c and the handler
// destinations, and validates it.
func internalConfig(c Config, handlers []Destination) (*config.Config, error) {
	cfg := config.Default()
	if c.File != "" {
		var err error
		if cfg, err = config.Load(c.File, nil); err != nil {
			return nil, fmt.Errorf("hookrelay: config %s: %w", c.File, err)
		}
	}
	if db := c.databaseURL(); db != "" {
		cfg.Database = db
	}
	for _, s := range c.Sources {
		src := config.DefaultSource(s.Verify)
		src.Name, src.Secrets = s.Name, s.Secrets
		if s.Tolerance > 0 {
			src.Tolerance = config.Duration(s.Tolerance)
		}
		if s.MaxBody > 0 {
			src.MaxBody = config.ByteSize(s.MaxBody)
		}
		cfg.Sources = append(cfg.Sources, src)
	}
	for _, h := range handlers {
		cfg.Destinations = append(cfg.Destinations, h.internal())
	}
	if err := addTokens(cfg, c.Tokens); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("hookrelay: config: %w", err)
	}
	return cfg, nil
}

// internal returns d as the relay's destination of kind handler.
func (d Destination) internal() config.Destination {
	out := config.DefaultDestination()
	out.Name, out.Handler, out.Sources, out.Types, out.OrderingKey = d.Name, true, d.Sources, d.Types, d.OrderingKey
	if d.MaxAttempts > 0 {
		out.MaxAttempts = d.MaxAttempts
	}
	if len(d.Backoff) > 0 {
		out.Backoff = make([]config.Duration, len(d.Backoff))
		for i, b := range d.Backoff {
			out.Backoff[i] = config.Duration(b)
		}
	}
	if d.Timeout > 0 {
		out.Timeout = config.Duration(d.Timeout)
	}
	if d.Concurrency > 0 {
		out.Concurrency = d.Concurrency
	}
	return out
}

// sqliteHandle stands for the file of Config.SQLite until Start reads its
// name (New does not touch the database).
const sqliteHandle = "sqlite:(the application's handle)"

// databaseURL returns the database c names: Database, or a URL that
// stands for the application's pool or handle (without a password).
func (c Config) databaseURL() string {
	switch {
	case c.Postgres != nil:
		cc := c.Postgres.Config().ConnConfig
		u := url.URL{Scheme: "postgres", User: url.User(cc.User), Host: net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))), Path: "/" + cc.Database}
		return u.String()
	case c.SQLite != nil:
		return sqliteHandle
	}
	return c.Database
}

// checkDatabase reports a Config that names its database more than once.
func (c Config) checkDatabase() error {
	n := 0
	for _, set := range []bool{c.Database != "", c.Postgres != nil, c.SQLite != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return errors.New("hookrelay: config: set one of Database, Postgres and SQLite")
	}
	if c.Schema != "" && c.SQLite != nil {
		return errors.New("hookrelay: config: Schema is PostgreSQL's: on SQLite hookrelay's tables are named hookrelay_*")
	}
	return nil
}

// resolved returns the relay's configuration of c and the handler
// destinations (see internalConfig), with its database resolved — the
// file of Config.SQLite read from the handle — and how the relay reaches
// that database.
func (c Config) resolved(ctx context.Context, handlers []Destination) (*config.Config, relay.Options, error) {
	cfg, err := internalConfig(c, handlers)
	if err != nil {
		return nil, relay.Options{}, err
	}
	opts := relay.Options{
		Store:            storeopen.Options{Schema: c.Schema, Pool: c.Postgres},
		ManualMigrations: c.ManualMigrations,
	}
	if c.SQLite != nil {
		path, err := storeopen.SQLitePath(ctx, c.SQLite)
		if err != nil {
			return nil, relay.Options{}, fmt.Errorf("hookrelay: config: SQLite: %w", err)
		}
		cfg.Database = "sqlite:" + path
	}
	return cfg, opts, nil
}
