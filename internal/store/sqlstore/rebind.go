package sqlstore

import (
	"strconv"
	"strings"
)

// Rebind rewrites the placeholders of a statement written for Conn into
// PostgreSQL's: ? becomes $n, n counting the plain ? from 1, and ?N becomes
// $N. A ? inside a quoted string or identifier is left as it is.
func Rebind(query string) string {
	if !strings.ContainsRune(query, '?') {
		return query
	}
	var (
		b     strings.Builder
		n     int
		quote byte // the quote we are inside, or 0
	)
	b.Grow(len(query) + 8)
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(query[i+1 : j])
				i = j - 1
			} else {
				n++
				b.WriteString(strconv.Itoa(n))
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
