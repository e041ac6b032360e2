package postgres

import "github.com/jackc/pgx/v5"

// collectMap reads rows of two columns, a key and its value, into a map.
func collectMap[K comparable, V any](rows pgx.Rows, err error) (map[K]V, error) {
	if err != nil {
		return nil, err
	}
	m := map[K]V{}
	_, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (struct{}, error) {
		var (
			k K
			v V
		)
		err := row.Scan(&k, &v)
		m[k] = v
		return struct{}{}, err
	})
	return m, err
}
