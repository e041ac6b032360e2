// Package postgres is hookrelay's PostgreSQL storage driver, on pgx.
//
// It keeps two connection pools: one for Ingest alone, so that delivery,
// replay and admin work can never starve the receiver of connections, and
// one for everything else.
package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Options are what a store is opened with beyond its URL. Zero fields take
// their defaults.
type Options struct {
	// IngestConns is the size of the pool Ingest uses (default 8).
	IngestConns int
	// OtherConns is the size of the pool every other call uses (default 16:
	// delivery workers complete attempts through it concurrently).
	OtherConns int
	// Schema is the schema hookrelay's tables are in; Migrate creates it.
	// Empty means the first schema of the search_path the URL (or the
	// pool) sets, as earlier versions did, or else sqlstore.DefaultSchema.
	Schema string
	// Keys seal the payloads the store writes and open those it reads;
	// nil stores payloads plain (and still reads plain rows).
	Keys *payloadcrypt.Ring
	// Partitions is the period the event log is partitioned by, as the
	// config asks (retention.partitions): Migrate partitions a database
	// that holds no event yet. One that holds events is converted by
	// EnablePartitions alone. Every statement follows the layout the
	// database has, whatever this says.
	Partitions store.PartitionPeriod
}

// Default pool sizes.
const (
	DefaultIngestConns = 8
	DefaultOtherConns  = 16
)

// Log keys.
const (
	logComponent = "component"
	logHost      = "host"
	logDatabase  = "database"
	logMigration = "migration"
	logSchema    = "schema"
	logShared    = "shared_pool"
	logError     = "error"
	logPartition = "partition"
)

// Store is the PostgreSQL implementation of store.DB.
type Store struct {
	*sqlstore.Ops // the operations written once, for both drivers

	ingest   *pgxpool.Pool // Ingest only; synchronous_commit=on, unless shared
	other    *pgxpool.Pool
	shared   bool                 // the pools are one, the application's: Close leaves it open
	paused   sqlstore.PausedCache // which destinations claims pass by
	leases   sqlstore.LeaseBook   // the batches of deferred deliveries this store ingested
	payloads sqlstore.Payloads    // seals and opens bodies, headers, snippets
	conn     *pgx.ConnConfig      // for the connections Listen opens
	tables   sqlstore.Tables      // where hookrelay's tables are
	opsSQL   *sqlstore.Rewriter   // Ops' statements: tables, ? to $n
	sql      *sqlstore.Rewriter   // this driver's statements: tables
	logger   *slog.Logger
	closed   atomic.Bool
	gateMu   sync.Mutex     // orders enter's admissions before Close
	inFlight sync.WaitGroup // calls enter admitted

	replayBatch int // deliveries per transaction of a replay

	partitions  store.PartitionPeriod // what Migrate makes of an empty database
	partitioned atomic.Bool           // the event log is partitioned (see readLayout)

	closeOnce sync.Once
	done      chan struct{} // closed by Close; stops listeners and folds
	foldsDone chan struct{} // closed when runFolds returns
}

var _ store.DB = (*Store)(nil)

// Open connects to the database at url (a postgres:// URL or a key=value
// string; runtime parameters may be given in it) with pools of its own,
// and checks that it answers; when it does not, the error wraps
// store.ErrUnavailable. It does not migrate; call Migrate.
func Open(ctx context.Context, url string, opts Options, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if opts.IngestConns <= 0 {
		opts.IngestConns = DefaultIngestConns
	}
	if opts.OtherConns <= 0 {
		opts.OtherConns = DefaultOtherConns
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	tables, err := tablesFor(opts.Schema, cfg.ConnConfig)
	if err != nil {
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	setDefaultParam(cfg, "application_name", "hookrelay")

	ingestCfg := cfg.Copy()
	ingestCfg.MaxConns = int32(opts.IngestConns)
	// The 200 the receiver sends depends on a durable commit, whatever the
	// server's or the role's default.
	ingestCfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"

	otherCfg := cfg.Copy()
	otherCfg.MaxConns = int32(opts.OtherConns)

	s := newStore(cfg.ConnConfig, tables, opts, logger)
	if s.ingest, err = pgxpool.NewWithConfig(ctx, ingestCfg); err != nil {
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	if s.other, err = pgxpool.NewWithConfig(ctx, otherCfg); err != nil {
		s.ingest.Close()
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	return s.start(ctx)
}

// OpenPool is Open on the application's pool, whose settings it leaves as
// they are: every call shares the pool (opts' pool sizes do not apply),
// Close leaves it open, and Ingest turns synchronous_commit on for its own
// transactions, so that a webhook is durable before it is acknowledged
// whatever the application chose for its own writes (the setting, local to the transaction, costs no round trip).
// Listen opens connections of its own, configured as the
// pool's.
func OpenPool(ctx context.Context, pool *pgxpool.Pool, opts Options, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	tables, err := tablesFor(opts.Schema, pool.Config().ConnConfig)
	if err != nil {
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	s := newStore(pool.Config().ConnConfig, tables, opts, logger)
	s.ingest, s.other, s.shared = pool, pool, true
	return s.start(ctx)
}

// newStore returns a Store with no pools yet.
func newStore(conn *pgx.ConnConfig, tables sqlstore.Tables, opts Options, logger *slog.Logger) *Store {
	return &Store{
		conn:     conn.Copy(),
		tables:   tables,
		opsSQL:   &sqlstore.Rewriter{Tables: tables, Dollar: true},
		sql:      &sqlstore.Rewriter{Tables: tables},
		logger:   logger.With(logComponent, "store.postgres"),
		payloads: sqlstore.Payloads{Keys: opts.Keys},
		done:     make(chan struct{}),

		foldsDone:   make(chan struct{}),
		replayBatch: replayBatch,
		partitions:  opts.Partitions,
	}
}

// start checks that the database answers and starts the folds.
func (s *Store) start(ctx context.Context) (*Store, error) {
	s.Ops = s.newOps()
	if err := s.other.Ping(ctx); err != nil {
		close(s.foldsDone) // no folds ran
		s.Close()
		return nil, fmt.Errorf("open postgres database: %w", unavailable(err))
	}
	if err := s.readLayout(ctx); err != nil {
		close(s.foldsDone) // no folds ran
		s.Close()
		return nil, fmt.Errorf("open postgres database: %w", s.mapErr(ctx, err))
	}
	go s.runFolds()
	s.logger.Info("database opened", logHost, s.conn.Host, logDatabase, s.conn.Database, logSchema, s.tables.Schema(),
		logShared, s.shared)
	return s, nil
}

// setDefaultParam sets a runtime parameter unless the URL set it.
func setDefaultParam(cfg *pgxpool.Config, name, value string) {
	if _, ok := cfg.ConnConfig.RuntimeParams[name]; !ok {
		cfg.ConnConfig.RuntimeParams[name] = value
	}
}

// Ping checks that the database answers, on the pool that is not
// reserved for Ingest.
func (s *Store) Ping(ctx context.Context) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	defer release()
	if err := s.other.Ping(ctx); err != nil {
		return fmt.Errorf("ping: %w", unavailable(err))
	}
	return nil
}

// Fatal returns nil while the store is open: every failure of a PostgreSQL
// connection is one the pools recover from by themselves. After Close it
// returns an error wrapping store.ErrUnavailable.
func (s *Store) Fatal() error {
	if s.closed.Load() {
		return fmt.Errorf("%w: store closed", store.ErrUnavailable)
	}
	return nil
}

// Close waits for calls in flight to end, then closes both pools (not a
// pool OpenPool was given), and stops the listeners. Later calls fail
// with an error wrapping store.ErrUnavailable. Closing twice is a no-op.
func (s *Store) Close() error {
	s.gateMu.Lock()
	s.closed.Store(true)
	s.gateMu.Unlock()
	s.inFlight.Wait()
	s.closeOnce.Do(func() { close(s.done) })
	<-s.foldsDone
	if !s.shared {
		s.ingest.Close()
		s.other.Close()
	}
	return nil
}
