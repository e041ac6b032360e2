package config

import (
	"fmt"
	"slices"
	"strings"
)

// expand replaces ${NAME} and ${NAME:-default} in s with values from getenv
// and returns the names it looked up. A default is used when the variable is
// unset or empty. "$${" stands for a literal "${"; any other "$" is kept as
// it is. Expansion happens once: a value is never expanded again.
func expand(s string, getenv func(string) string) (string, []string, error) {
	if !strings.Contains(s, "${") {
		return s, nil, nil
	}
	var b strings.Builder
	var vars []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i-1] + "${")
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", nil, fmt.Errorf("unterminated ${ in %q", s[i:])
		}
		expr := s[i+2 : i+end]
		s = s[i+end+1:]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !validVarName(name) {
			return "", nil, fmt.Errorf("invalid variable name %q in ${%s}", name, expr)
		}
		if !slices.Contains(vars, name) {
			vars = append(vars, name)
		}
		v := getenv(name)
		if v == "" && hasDef {
			v = def
		}
		b.WriteString(v)
	}
	return b.String(), vars, nil
}

// validVarName reports whether name is a shell-style variable name.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
