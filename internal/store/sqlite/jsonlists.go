package sqlite

import "encoding/json"

// jsonArray encodes ids as a JSON array, the form in which statements
// that read a list through json_each take it: listing, replay, purge,
// backfill. Claims and outcomes bind their rows instead (see multiRow).
func jsonArray[T int64 | string](vs []T) string {
	b, _ := json.Marshal(vs) // cannot fail for these types
	return string(b)
}

// leasePairs encodes deliveries and their lease tokens as a JSON array of
// [id, token] pairs, as releaseDeliveries takes them.
func leasePairs(ids []int64, tokens []string) string {
	pairs := make([][2]any, len(ids))
	for i := range ids {
		pairs[i] = [2]any{ids[i], tokens[i]}
	}
	b, _ := json.Marshal(pairs) // cannot fail for ints and strings
	return string(b)
}
