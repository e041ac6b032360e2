package sqlstore

import (
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
)

// An event-type glob has '*' (any run of characters) and '?' (one
// character); every other character matches itself. Each driver matches
// it with the operator of its database that is case-sensitive: SQLite's
// GLOB (its LIKE is not, for ASCII) and PostgreSQL's LIKE. A glob without
// wildcard is exact, for the caller to compare with = instead.

// GlobPattern checks an event-type glob and returns it as a pattern for
// SQLite's GLOB operator, which has the same '*' and '?', while '%', '_'
// and '\' match themselves. A character class ('[' or ']') is
// store.ErrBadFilter.
func GlobPattern(glob string) (pattern string, exact bool, err error) {
	if err := checkGlob(glob); err != nil {
		return "", false, err
	}
	return glob, !strings.ContainsAny(glob, "*?"), nil
}

// LikePattern translates an event-type glob into a LIKE pattern with '\'
// as its escape character: '*' becomes '%', '?' becomes '_', and '%', '_'
// and '\' match themselves. An exact glob is returned as it is. A
// character class ('[' or ']') is store.ErrBadFilter.
func LikePattern(glob string) (pattern string, exact bool, err error) {
	if err := checkGlob(glob); err != nil {
		return "", false, err
	}
	if !strings.ContainsAny(glob, "*?") {
		return glob, true, nil
	}
	var b strings.Builder
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteByte('%')
		case '?':
			b.WriteByte('_')
		case '%', '_', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), false, nil
}

// checkGlob returns store.ErrBadFilter for a glob with a character class.
func checkGlob(glob string) error {
	if strings.ContainsAny(glob, "[]") {
		return fmt.Errorf("%w: type glob %q: character classes are not supported", store.ErrBadFilter, glob)
	}
	return nil
}
