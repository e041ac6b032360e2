package sqlstore

// NonNil returns s, or an empty slice for nil, which would bind as NULL
// (a NULL body, or a NULL array in PostgreSQL).
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
