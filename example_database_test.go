package hookrelay_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hookrelay/hookrelay"
)

// An application with its own pool and migration tool: hookrelay runs on
// the pool, its tables in their own schema, and Start only checks that
// the application's tool applied hookrelay's migrations.
func ExampleConfig_ownPool() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL")) // the application's, with its settings
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close() // after Shutdown, which leaves it open
	r, err := hookrelay.New(hookrelay.Config{
		Postgres:         pool,
		Schema:           "webhooks",
		ManualMigrations: true, // golang-migrate applies `hookrelay migrate export --schema webhooks`
		Sources:          []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{os.Getenv("STRIPE_WEBHOOK_SECRET")}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		log.Fatal(err) // names the migrations missing, if any
	}
	defer r.Shutdown(ctx)
}

// The migrations for an application's own tool: one file each, as
// golang-migrate names them, for hookrelay's tables in schema webhooks.
func ExampleMigrations() {
	ms, err := hookrelay.Migrations("postgres", "webhooks")
	if err != nil {
		log.Fatal(err)
	}
	dir, _ := os.MkdirTemp("", "migrations-")
	defer os.RemoveAll(dir)
	for _, m := range ms {
		if err := os.WriteFile(filepath.Join(dir, m.FileName()), []byte(m.SQL), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(ms[0].FileName())
	fmt.Println(strings.Contains(ms[0].SQL, `CREATE SCHEMA IF NOT EXISTS "webhooks"`))
	// Output:
	// 0001_init.up.sql
	// true
}
