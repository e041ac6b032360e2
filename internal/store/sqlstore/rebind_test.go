package sqlstore

import "testing"

func TestRebind(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = $1 AND c = $2"},
		{"WHERE id > ?1 AND key_id <> ?2 LIMIT ?3", "WHERE id > $1 AND key_id <> $2 LIMIT $3"},
		{"WHERE a = '?' AND b = ? AND \"c?\" = ?", "WHERE a = '?' AND b = $1 AND \"c?\" = $2"},
		{"VALUES (?, ?), (?, ?)", "VALUES ($1, $2), ($3, $4)"},
		{"WHERE a = ?12", "WHERE a = $12"},
	} {
		if got := Rebind(tc.in); got != tc.want {
			t.Errorf("Rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
