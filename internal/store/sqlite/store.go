// Package sqlite is hookrelay's embedded storage driver, on a single SQLite
// file through the pure-Go modernc.org/sqlite driver.
//
// Every write goes through one connection, so writers never wait on each
// other's locks inside SQLite; reads use a separate pool and, thanks to WAL
// mode, never block the writer.
//
// Unlike the PostgreSQL driver it does not support Listen: there is no
// notification between processes, and one process owns the file, so the
// relay wakes its delivery engine (its Wake) itself when an Ingest commits.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// busyTimeoutMS is how long a connection waits for a lock held by another
// process (a second hookrelay, a backup) before failing with SQLITE_BUSY.
const busyTimeoutMS = 5000

// readConns is the size of the read pool.
const readConns = 4

// errClosed is returned by every call made after Close.
var errClosed = fmt.Errorf("%w: store closed", store.ErrUnavailable)

// Store is the SQLite implementation of store.DB.
type Store struct {
	*sqlstore.Ops // the operations written once, for both drivers

	writer       *sql.DB // exactly one connection; transactions BEGIN IMMEDIATE
	reader       *sql.DB // read-only pool
	checkpointer *sql.DB // one connection that runs WAL checkpoints
	wal          *walSyncer
	paused       sqlstore.PausedCache // which destinations claims pass by
	payloads     sqlstore.Payloads    // seals and opens bodies, headers, snippets
	rewriter     *sqlstore.Rewriter   // hookrelay.events to hookrelay_events
	logger       *slog.Logger

	stopCheckpoints chan struct{}
	checkpointsDone chan struct{}

	// mu is held for reading by every call and for writing by Close, so
	// that Close waits for calls in flight and later calls see closed.
	mu     sync.RWMutex
	closed bool // guarded by mu

	replayBatch int // deliveries per transaction of a replay

	leases sqlstore.LeaseBook // the batches of deferred deliveries this store ingested

	stmtMu             sync.Mutex
	stmts              *writeStmts // guarded by stmtMu; prepared on first use
	insertEvents       multiRow
	insertDeliveries   multiRow
	insertLeased       multiRow
	completeDeliveries multiRow
	insertDeferred     multiRow
	insertAttempts     multiRow
	claimRows          multiRow
	selectClaimed      multiRow
	claimDigests       multiRow
}

var _ store.DB = (*Store)(nil)

// Options are what a store is opened with beyond its file.
type Options struct {
	// Keys seal the payloads the store writes and open those it reads;
	// nil stores payloads plain (and still reads plain rows).
	Keys *payloadcrypt.Ring
}

// Open opens, creating it if needed, the SQLite database at path (a file
// name, not a URI), with no keys. It does not migrate; call Migrate.
func Open(ctx context.Context, path string, logger *slog.Logger) (*Store, error) {
	return OpenWith(ctx, path, Options{}, logger)
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, opts Options, logger *slog.Logger) (*Store, error) {
	if path == "" || strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open sqlite database: path %q must be a plain file name", path)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if path != ":memory:" {
		if err := createPrivate(path); err != nil {
			return nil, fmt.Errorf("open sqlite database: %w", err)
		}
	}
	writer, err := sql.Open("sqlite", path+"?"+writerParams())
	if err != nil {
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)

	reader, err := sql.Open("sqlite", path+"?"+readerParams())
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	reader.SetMaxOpenConns(readConns)
	reader.SetMaxIdleConns(readConns)

	checkpointer, err := sql.Open("sqlite", path+"?"+checkpointerParams())
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	checkpointer.SetMaxOpenConns(1)

	s := &Store{
		writer:           writer,
		reader:           reader,
		checkpointer:     checkpointer,
		wal:              newWALSyncer(path),
		logger:           logger.With(logComponent, "store.sqlite"),
		payloads:         sqlstore.Payloads{Keys: opts.Keys},
		rewriter:         &sqlstore.Rewriter{Tables: sqlstore.Prefixed()},
		replayBatch:      replayBatch,
		stopCheckpoints:  make(chan struct{}),
		checkpointsDone:  make(chan struct{}),
		insertEvents:     multiRow{head: insertEventsHead, row: insertEventsRow, tail: insertEventsTail},
		insertDeliveries: multiRow{head: insertDeliveriesHead, row: insertDeliveriesRow, tail: insertDeliveriesTail},
		insertLeased: multiRow{
			head: insertLeasedDeliveriesHead, row: insertLeasedDeliveriesRow, tail: insertLeasedDeliveriesTail,
		},
		completeDeliveries: multiRow{
			head: completeDeliveriesHead, row: completeDeliveriesRow, tail: completeDeliveriesTail,
		},
		insertDeferred: multiRow{
			head: insertDeferredOutcomesHead, row: insertDeferredOutcomesRow, tail: insertDeferredOutcomesTail,
		},
		insertAttempts: multiRow{head: insertAttemptsHead, row: insertAttemptsRow, tail: insertAttemptsTail},
		claimRows:      multiRow{head: claimRowsHead, row: claimRowsRow, tail: claimRowsTail},
		selectClaimed:  multiRow{head: selectClaimedHead, row: selectClaimedRow, tail: selectClaimedTail},
		claimDigests:   multiRow{head: claimDigestsHead, row: claimDigestsRow, tail: claimDigestsTail},
	}
	s.Ops = s.newOps()
	go s.runCheckpoints()
	if err := s.checkJournalMode(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	if err := s.wal.remember(); err != nil {
		s.Close()
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	if err := reader.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open sqlite database: %w", mapErr(ctx, err))
	}
	s.logger.Info("database opened", logPath, path)
	warnOpenModes(s.logger, path)
	return s, nil
}

// Log keys.
const (
	logComponent = "component"
	logPath      = "path"
	logMigration = "migration"
)

// writerParams are the writer's DSN parameters: WAL, enforced foreign keys,
// secure_delete (what a statement deletes or overwrites is zeroed in its
// page, so a purged payload leaves no readable bytes in free space; see
// ClearErased), and synchronous=NORMAL with no automatic checkpoints — Ingest makes its
// commits durable itself by fsyncing the WAL outside the write lock (see
// walSyncer), and checkpoints run on their own connection (runCheckpoints),
// so neither an fsync nor a checkpoint holds up the next write.
func writerParams() string {
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "wal_autocheckpoint(0)")
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", journalSizeLimit))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "secure_delete(1)")
	return q.Encode()
}

// checkpointerParams are the checkpoint connection's: under NORMAL a
// checkpoint syncs the WAL before copying it and the database after. Its
// short busy timeout bounds how long a RESTART or TRUNCATE checkpoint holds
// off the writer while it waits for readers; one that gives up is tried
// again on a later tick.
func checkpointerParams() string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", checkpointBusyMS))
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", journalSizeLimit))
	q.Add("_pragma", "synchronous(NORMAL)")
	return q.Encode()
}

// readerParams are the read pool's DSN parameters. The journal mode is a
// property of the file, set by the writer.
func readerParams() string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "query_only(1)")
	return q.Encode()
}

// checkJournalMode connects the writer and fails unless the file is in WAL
// mode, which an in-memory database or some file systems refuse.
func (s *Store) checkJournalMode(ctx context.Context) error {
	var mode string
	if err := s.writer.QueryRowContext(ctx, journalModeQuery).Scan(&mode); err != nil {
		return mapErr(ctx, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal_mode is %q, want wal", mode)
	}
	return nil
}

// enter admits a call, or refuses it once the store is closed. An admitted
// call holds s.mu for reading until it calls release, so that Close waits
// for it; every caller defers release on the line after the check:
//
//	release, err := s.enter()
//	if err != nil {
//		return fmt.Errorf("verb: %w", err)
//	}
//	defer release()
//
// Returning the release rather than leaving the unlock to the caller means
// a call that forgets it does not compile (release is declared and not
// used), and the lock stays an implementation detail of enter and Close.
func (s *Store) enter() (release func(), err error) {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return nil, errClosed
	}
	return s.mu.RUnlock, nil
}

// Ping checks that the database file answers and is still the file that
// was opened: a database removed while the process runs answers reads from
// the open file, but nothing it stores outlives the process.
func (s *Store) Ping(ctx context.Context) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	defer release()
	if err := s.wal.checkDB(); errors.Is(err, errRemoved) {
		return fmt.Errorf("ping: %w: %w", store.ErrUnavailable, err)
	}
	var v int64
	if err := s.reader.QueryRowContext(ctx, pingQuery).Scan(&v); err != nil {
		return fmt.Errorf("ping: %w: %w", store.ErrUnavailable, err)
	}
	return nil
}

// Fatal returns the failure that only reopening the database recovers
// from — a failed fsync of the WAL, or a database file removed or replaced
// while the process runs — or nil; after Close, errClosed. Liveness checks
// ask it.
func (s *Store) Fatal() error {
	release, err := s.enter()
	if err != nil {
		return err
	}
	defer release()
	if err := s.wal.fatal(); err != nil {
		return err
	}
	if err := s.wal.checkDB(); errors.Is(err, errRemoved) {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return nil
}

// Close waits for calls in flight, then closes the database. Later calls
// fail with an error wrapping store.ErrUnavailable. Closing twice is a no-op.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	close(s.stopCheckpoints)
	<-s.checkpointsDone
	var errs []error
	if s.stmts != nil {
		errs = append(errs, s.stmts.close())
	}
	errs = append(errs, closeMultiRow(&s.insertEvents)...)
	errs = append(errs, closeMultiRow(&s.insertDeliveries)...)
	errs = append(errs, closeMultiRow(&s.insertLeased)...)
	errs = append(errs, closeMultiRow(&s.completeDeliveries)...)
	errs = append(errs, closeMultiRow(&s.insertDeferred)...)
	errs = append(errs, closeMultiRow(&s.insertAttempts)...)
	errs = append(errs, closeMultiRow(&s.claimRows)...)
	errs = append(errs, closeMultiRow(&s.selectClaimed)...)
	errs = append(errs, closeMultiRow(&s.claimDigests)...)
	errs = append(errs, s.checkpointer.Close(), s.reader.Close(), s.writer.Close(), s.wal.close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close sqlite database: %w", err)
	}
	return nil
}
