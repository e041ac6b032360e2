package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hookrelay/hookrelay/internal/store"
)

// mapErr maps a pgx error to the store's sentinel errors: no rows to
// store.ErrNotFound; a lost or refused connection, a server shutting down or
// out of resources, a closed store and a cancelled or expired context to an
// error wrapping store.ErrUnavailable. Other errors are returned as they
// are.
func (s *Store) mapErr(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return store.ErrNotFound
	case s.closed.Load(), ctx.Err() != nil, isUnavailable(err):
		return unavailable(err)
	}
	return err
}

// isUnavailable tells whether err means that the database cannot be
// reached or cannot take the work right now, so that the same call may
// succeed later.
func isUnavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return unavailableCode(pgErr.Code)
	}
	var (
		connectErr *pgconn.ConnectError
		netErr     net.Error
	)
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		pgconn.Timeout(err) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// unavailableCode tells whether a server error code is transient: see
// https://www.postgresql.org/docs/current/errcodes-appendix.html.
func unavailableCode(code string) bool {
	switch code {
	case "25006", // read_only_sql_transaction: a standby, during failover
		"40001", // serialization_failure
		"40P01", // deadlock_detected
		"57014": // query_canceled: statement timeout or cancel request
		return true
	}
	for _, class := range []string{
		"08",  // connection exception
		"53",  // insufficient resources: disk full, out of memory, too many connections
		"57P", // admin_shutdown, crash_shutdown, cannot_connect_now, ...
		"58",  // system error: I/O
	} {
		if strings.HasPrefix(code, class) {
			return true
		}
	}
	return false
}

// isUniqueViolation tells whether err is the server's unique_violation.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// unavailable wraps err so that it matches both store.ErrUnavailable and err.
func unavailable(err error) error {
	return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
}
