package sqlstore

import "testing"

func TestTablesRewrite(t *testing.T) {
	other, err := InSchema("relay_x")
	if err != nil {
		t.Fatal(err)
	}
	def, _ := InSchema("")
	for _, tc := range []struct {
		tables  Tables
		in, out string
	}{
		{def, "SELECT 1 FROM hookrelay.events", "SELECT 1 FROM hookrelay.events"},
		{other, "SELECT 1 FROM hookrelay.events e JOIN hookrelay.deliveries d ON d.event_id = e.id",
			`SELECT 1 FROM "relay_x".events e JOIN "relay_x".deliveries d ON d.event_id = e.id`},
		{other, "SELECT to_regclass('hookrelay.schema_migrations')", `SELECT to_regclass('"relay_x".schema_migrations')`},
		{Prefixed(), "UPDATE hookrelay.deliveries SET attempts = attempts + 1",
			"UPDATE hookrelay_deliveries SET attempts = attempts + 1"},
		// Not a marker: part of a longer name, or no name after it.
		{Prefixed(), "SELECT my_hookrelay.x, 'hookrelay.'", "SELECT my_hookrelay.x, 'hookrelay.'"},
		{Prefixed(), "SELECT 'hookrelay.", "SELECT 'hookrelay."},
	} {
		if got := tc.tables.Rewrite(tc.in); got != tc.out {
			t.Errorf("Rewrite(%q) = %q, want %q", tc.in, got, tc.out)
		}
	}
	if got := other.Name("events"); got != `"relay_x".events` {
		t.Errorf("Name = %q", got)
	}
	if other.Schema() != "relay_x" || def.Schema() != DefaultSchema {
		t.Errorf("Schema = %q, %q", other.Schema(), def.Schema())
	}
	for _, bad := range []string{"Public", "pg_x", "1a", "a-b", `a"b`} {
		if _, err := InSchema(bad); err == nil {
			t.Errorf("InSchema(%q) accepted", bad)
		}
	}
}

func TestRewriterCaches(t *testing.T) {
	r := Rewriter{Tables: Prefixed(), Dollar: true}
	for range 2 {
		if got := r.SQL("SELECT * FROM hookrelay.events WHERE id = ?"); got != "SELECT * FROM hookrelay_events WHERE id = $1" {
			t.Fatalf("SQL = %q", got)
		}
	}
}

func TestFirstSchema(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "t_1": "t_1", "Relay, public": "relay", `"$user", public`: "", `"hooks", public`: "hooks", "$user": "",
	} {
		if got := FirstSchema(in); got != want {
			t.Errorf("FirstSchema(%q) = %q, want %q", in, got, want)
		}
	}
}
