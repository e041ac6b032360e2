package postgres

import (
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
)

// likePattern translates an event-type glob into a LIKE pattern with '\'
// as its escape character: '*' becomes '%', '?' becomes '_', and '%', '_'
// and '\' match themselves. exact is true when the glob has no wildcard,
// so that the caller may compare with = instead. A character class ('['
// or ']') is store.ErrBadFilter.
func likePattern(glob string) (pattern string, exact bool, err error) {
	var b strings.Builder
	exact = true
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteByte('%')
			exact = false
		case '?':
			b.WriteByte('_')
			exact = false
		case '%', '_', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '[', ']':
			return "", false, fmt.Errorf("%w: type glob %q: character classes are not supported", store.ErrBadFilter, glob)
		default:
			b.WriteRune(r)
		}
	}
	if exact {
		return glob, true, nil
	}
	return b.String(), false, nil
}
