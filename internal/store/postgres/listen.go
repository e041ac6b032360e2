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
	return s.subscribe(ctx, notifyChannel, "delivery notifications")
}

// ListenReloads implements store.Fleet: the payloads of reloadChannel,
// as Listen delivers those of the deliveries' channel (an empty id after
// a reconnection: a reload may have been missed).
func (s *Store) ListenReloads(ctx context.Context) (<-chan string, error) {
	return s.subscribe(ctx, reloadChannel, "reload announcements")
}

// AnnounceReload implements store.Fleet.
func (s *Store) AnnounceReload(ctx context.Context, from string) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("announce reload: %w", err)
	}
	defer release()
	if _, err := s.other.Exec(ctx, notifyReload, from); err != nil {
		return fmt.Errorf("announce reload: %w", s.mapErr(ctx, err))
	}
	return nil
}

// subscribe delivers the payloads of the notifications of channel, as
// Listen says; what names them in errors and logs.
func (s *Store) subscribe(ctx context.Context, channel, what string) (<-chan string, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("listen for %s: %w: store closed", what, store.ErrUnavailable)
	}
	l := listener{s: s, channel: channel, what: what}
	conn, err := l.connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("listen for %s: %w", what, s.mapErr(ctx, err))
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
		l.forward(ctx, conn, ch)
	}()
	return ch, nil
}

// listener is one LISTEN of a store: its channel, and what it is for.
type listener struct {
	s       *Store
	channel string
	what    string
}

// connect opens a connection and listens on it.
func (l listener) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, l.s.conn.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+l.channel); err != nil { // a constant of this package
		closeConn(conn)
		return nil, err
	}
	return conn, nil
}

// forward forwards the notifications conn receives to ch, reconnecting
// when conn is lost, until ctx is done.
func (l listener) forward(ctx context.Context, conn *pgx.Conn, ch chan<- string) {
	s := l.s
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
		s.logger.Warn(l.what+": connection lost; reconnecting", logError, err)
		closeConn(conn)
		if conn = l.reconnect(ctx); conn == nil {
			return
		}
		s.logger.Info(l.what + ": listening again")
		if !send(ctx, ch, "") {
			return
		}
	}
}

// reconnect opens a listening connection, retrying with backoff; it
// returns nil when ctx is done first.
func (l listener) reconnect(ctx context.Context) *pgx.Conn {
	delay := listenRetryMin
	for {
		conn, err := l.connect(ctx)
		if err == nil {
			return conn
		}
		if ctx.Err() != nil {
			return nil
		}
		l.s.logger.Debug(l.what+": reconnect failed", logError, err)
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
