package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// checkSearch refuses the search flags of `events list` that cannot go
// together, before the relay is asked.
func checkSearch(idPrefix, text string, scan int) error {
	switch {
	case idPrefix != "" && text != "":
		return fmt.Errorf("%w: --id and --text: search by id or by text, not both", errUsage)
	case scan < 0 || scan > 100_000:
		return fmt.Errorf("%w: --scan %d: want 1 to 100000 events a page", errUsage, scan)
	case scan > 0 && text == "":
		return fmt.Errorf("%w: --scan bounds a --text search; add --text", errUsage)
	}
	return nil
}

// describeTextSearch says what a text search read for one page.
func describeTextSearch(ts adminwire.TextSearch) string {
	out := "searched " + counted(ts.Scanned, eventNoun, eventsNoun)
	switch {
	case ts.Exhausted:
		out += ", every one the filters select"
		if ts.OldestScanned != nil {
			out += " back to " + stamp(*ts.OldestScanned)
		}
	case ts.OldestScanned != nil:
		out += fmt.Sprintf(" back to %s, the most one page reads (--scan %d)", stamp(*ts.OldestScanned), ts.ScanLimit)
	}
	if ts.Sealed > 0 {
		out += fmt.Sprintf("; %s encrypted and could not be searched", counted(ts.Sealed, "event was", "events were"))
	}
	return out
}

// printAttemptHeaders prints the headers an attempt sent and received,
// one a line, or why there are none.
func printAttemptHeaders(w io.Writer, a adminwire.Attempt) {
	if a.RequestHeaders == nil && a.ResponseHeaders == nil {
		fmt.Fprintln(w, "      no headers kept (they are kept for failed push attempts)")
		return
	}
	for _, side := range []struct {
		name string
		h    map[string][]string
	}{{"sent", a.RequestHeaders}, {"received", a.ResponseHeaders}} {
		if side.h == nil {
			fmt.Fprintf(w, "      %s: none\n", side.name)
			continue
		}
		fmt.Fprintf(w, "      %s:\n", side.name)
		for _, k := range slices.Sorted(maps.Keys(side.h)) {
			for _, v := range side.h[k] {
				fmt.Fprintf(w, "        %s: %s\n", shownValue(k), shownValue(v))
			}
		}
	}
	if a.HeadersDropped > 0 {
		fmt.Fprintf(w, "      (%s left out to keep at most 50 a side and 8 KiB)\n", counted(a.HeadersDropped, "header", "headers"))
	}
}

// shownValue is a value a destination chose as a terminal may show it:
// quoted when it holds a character that is not printable, such as an
// escape sequence.
func shownValue(v string) string {
	if strings.IndexFunc(v, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 || !utf8.ValidString(v) {
		return strconv.Quote(v)
	}
	return v
}
