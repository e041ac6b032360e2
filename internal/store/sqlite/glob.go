package sqlite

import (
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
)

// globPattern checks an event-type glob and returns it as a pattern for
// SQLite's GLOB operator, which is case-sensitive (LIKE is not, for
// ASCII) and has the same '*' (any run of characters) and '?' (one
// character), while '%', '_' and '\' match themselves. exact is true when
// the glob has no wildcard, so that the caller may compare with = instead.
// A character class ('[' or ']') is store.ErrBadFilter.
func globPattern(glob string) (pattern string, exact bool, err error) {
	if strings.ContainsAny(glob, "[]") {
		return "", false, fmt.Errorf("%w: type glob %q: character classes are not supported", store.ErrBadFilter, glob)
	}
	return glob, !strings.ContainsAny(glob, "*?"), nil
}
