package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Reconnection backoff of Listen.
const (
	listenRetryMin = 100 * time.Millisecond
	listenRetryMax = 10 * time.Second
)

// SupportsListener is true: Listen delivers notifications (LISTEN/NOTIFY).
func (s *Store) SupportsListener() bool { return true }

// Listen delivers the name of each destination that an Ingest, in this
// process or another, gave new deliveries, as soon as the Ingest commits
// (each Ingest notifies once per destination of its batch, duplicates
// included). It listens on a connection of its own, not from the pools,
// and returns once that connection listens; the error wraps
// store.ErrUnavailable when the database cannot be reached.
//
// When the connection is lost, Listen reconnects with backoff and then
// sends an empty name: notifications sent while it was away are lost, so
// the receiver should then look at every destination. The channel is
// closed when ctx is done or the store is closed. The receiver must keep
// reading: Listen waits for it, and the server queues notifications
// meanwhile.
func (s *Store) Listen(ctx context.Context) (<-chan string, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("listen for deliveries: %w: store closed", store.ErrUnavailable)
	}
	conn, err := s.listenConn(ctx)
	if err != nil {
		return nil, fmt.Errorf("listen for deliveries: %w", s.mapErr(ctx, err))
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	ch := make(chan string, 64)
	go func() {
		defer cancel()
		defer close(ch)
		s.listen(ctx, conn, ch)
	}()
	return ch, nil
}

// listenConn opens a connection and listens on it.
func (s *Store) listenConn(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.conn.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, listenDeliveries); err != nil {
		closeConn(conn)
		return nil, err
	}
	return conn, nil
}

// listen forwards the notifications conn receives to ch, reconnecting
// when conn is lost, until ctx is done.
func (s *Store) listen(ctx context.Context, conn *pgx.Conn, ch chan<- string) {
	defer func() { closeConn(conn) }()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err == nil {
			if !send(ctx, ch, n.Payload) {
				return
			}
			continue
		}
		if ctx.Err() != nil {
			return
		}
		s.logger.Warn("delivery notifications: connection lost; reconnecting", logError, err)
		closeConn(conn)
		if conn = s.relisten(ctx); conn == nil {
			return
		}
		s.logger.Info("delivery notifications: listening again")
		if !send(ctx, ch, "") {
			return
		}
	}
}

// relisten opens a listening connection, retrying with backoff; it
// returns nil when ctx is done first.
func (s *Store) relisten(ctx context.Context) *pgx.Conn {
	delay := listenRetryMin
	for {
		conn, err := s.listenConn(ctx)
		if err == nil {
			return conn
		}
		if ctx.Err() != nil {
			return nil
		}
		s.logger.Debug("delivery notifications: reconnect failed", logError, err)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		delay = min(2*delay, listenRetryMax)
	}
}

// send sends name on ch unless ctx is done first, and tells whether it
// did.
func send(ctx context.Context, ch chan<- string, name string) bool {
	select {
	case ch <- name:
		return true
	case <-ctx.Done():
		return false
	}
}

// closeConn closes a listening connection, giving the server a moment to
// hear the goodbye.
func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}
