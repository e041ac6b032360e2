package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestConsoleSessionLookupPlan checks that the read each console request
// makes of its session is one scan of the primary key's index, among a
// few thousand sessions.
func TestConsoleSessionLookupPlan(t *testing.T) {
	t.Parallel()
	s := openURL(t, testdb.PostgresURL(t))
	ctx := context.Background()
	for _, stmt := range []string{
		`INSERT INTO hookrelay.console_sessions (key_digest, token, role, binding, created_at, seen_at, expires_at)
		SELECT sha256(i::text::bytea), 'ops' || (i % 50), 'admin', '\x00', now(), now(), now() + interval '1 hour'
		FROM generate_series(1, 5000) AS i`,
		`ANALYZE hookrelay.console_sessions`,
	} {
		if _, err := s.other.Exec(ctx, s.opsSQL.SQL(stmt)); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.other.Query(ctx, s.opsSQL.SQL("EXPLAIN (COSTS OFF) "+sqlstore.ConsoleSessionLookup), []byte("key"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, strings.TrimSpace(line))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	if !strings.HasPrefix(plan[0], "Index Scan using console_sessions_pkey") || strings.Contains(text, "Seq Scan") {
		t.Errorf("plan of the session lookup:\n%s\nwant one scan of the primary key's index", text)
	}
}
