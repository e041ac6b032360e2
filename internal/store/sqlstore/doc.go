// Package sqlstore holds what hookrelay's two SQL storage drivers,
// internal/store/sqlite and internal/store/postgres, do alike whatever the
// database: the id range of a receive window and the bound of a prune,
// event-type globs as patterns, the WHERE clause of an event filter and
// the paging of a list of events, lease tokens, the order of claims and
// response snippets, the counts of Stats, the JSON of headers and of
// audit rows, and the listing of embedded migrations. Each driver keeps
// its own statements; where their SQL differs (placeholders, how a glob
// or a list of ids is matched, how a time is bound) its Dialect says how.
package sqlstore
