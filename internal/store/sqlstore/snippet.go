package sqlstore

// MaxSnippet is the most of a response body an attempt keeps, in bytes.
const MaxSnippet = 1 << 10

// Snippet returns the part of a response body an attempt keeps: its first
// MaxSnippet bytes, as the drivers store it (bytea, BLOB).
func Snippet(body string) []byte {
	return []byte(body[:min(len(body), MaxSnippet)])
}
