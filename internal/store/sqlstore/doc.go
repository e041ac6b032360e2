// Package sqlstore is the half of hookrelay's two SQL storage drivers,
// internal/store/sqlite and internal/store/postgres, that does not depend
// on the database: the operations of store.DB written once (Ops) over a
// small connection seam (Conn, Rows, Row) and a Dialect, plus what those
// operations share with the drivers' own code — the event filter's WHERE
// clause and paging, lease tokens, the order of claims, the rows of
// completions, the counts of Stats, the sealing of payload columns, and
// the listing of embedded migrations.
//
// Statements are written once, with ? placeholders (?N for the Nth
// argument), and rewritten by the PostgreSQL driver's Conn (see Rebind).
// Where the SQL really differs — how a list or a batch of rows is bound,
// row locks, LISTEN/NOTIFY, a statement only one database can run — the
// Dialect says how, in a field set by each driver's dialect.go. A driver
// keeps only what is its own: ingest, claims and outcomes (SQLite's single
// writer and its WAL durability; PostgreSQL's SKIP LOCKED claims and
// asynchronous commits), listening, migrations, backups, and PostgreSQL's
// COPY import. Both drivers run one conformance suite (storetest).
package sqlstore
