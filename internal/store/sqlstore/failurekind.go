package sqlstore

import (
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/failure"
)

// FailureKind returns the SQL expression of failure.Classify over the
// columns code (the last status code) and text (the last error): a CASE
// written from failure.CodeRules and failure.TextRules, in their order,
// with the rules' texts as literals, so that the statement's text is the
// same on every call. The conformance suite holds it to Classify on both
// drivers.
func (d Dialect) FailureKind(code, text string) string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, r := range failure.CodeRules {
		fmt.Fprintf(&b, "\n\tWHEN %s BETWEEN %d AND %d THEN %s", code, r.Min, r.Max, literal(string(r.Kind)))
	}
	fmt.Fprintf(&b, "\n\tWHEN %s <> 0 THEN %s", code, literal(string(failure.Other)))
	for _, r := range failure.TextRules {
		conds := make([]string, len(r.Texts))
		for i, s := range r.Texts {
			conds[i] = fmt.Sprintf(d.Contains, text, literal(s))
		}
		fmt.Fprintf(&b, "\n\tWHEN %s THEN %s", strings.Join(conds, " OR "), literal(string(r.Kind)))
	}
	fmt.Fprintf(&b, "\n\tELSE %s END", literal(string(failure.Other)))
	return b.String()
}

// literal returns s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
