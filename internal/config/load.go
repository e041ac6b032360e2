package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads the YAML file at path and returns its configuration with
// ${NAME} values expanded from getenv (os.Getenv when nil), file: secrets
// read, defaults filled and everything validated. A configuration with
// problems is returned as a *ValidationError, not wrapped, so that its text
// is one problem a line; the caller names the file.
func Load(path string, getenv func(string) string) (*Config, error) {
	return LoadParts(path, getenv)
}

// LoadParts is Load for a command that uses only the parts of the
// configuration under the top-level keys parts (none: all of it). A
// problem that only an unset variable causes outside those parts does not
// stop it: it is kept in the returned Config's Unused instead, so that
// `migrate` runs without the destinations' secrets and `send` without the
// admin tokens. Every other problem is an error as for Load.
func LoadParts(path string, getenv func(string) string, parts ...string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve config path: %w", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := parseParts(data, filepath.Dir(abs), getenv, parts)
	if err != nil {
		return nil, err
	}
	c.Path = abs
	return c, nil
}

// Parse is Load for a file's contents: relative paths in data (the SQLite
// database, file: secrets) resolve against baseDir. Tokens whose secret is
// empty are dropped, with a warning, after validation.
func Parse(data []byte, baseDir string, getenv func(string) string) (*Config, error) {
	return parseParts(data, baseDir, getenv, nil)
}

// parseParts is Parse for a command that uses only parts (see LoadParts).
func parseParts(data []byte, baseDir string, getenv func(string) string, parts []string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse yaml: %w", err)
	}
	c := Default()
	d := &decoder{getenv: getenv, origins: map[string]origin{}, budget: maxNodes}
	if len(doc.Content) > 0 {
		d.decode(doc.Content[0], reflect.ValueOf(c).Elem(), "")
	}
	c.origins = d.origins
	for i := range c.Sources {
		c.Sources[i].fillHMACDefaults()
	}
	if d.budget < 0 {
		return nil, &ValidationError{Problems: d.problems}
	}
	d.resolveFiles(c, baseDir)
	c.Database = resolveSQLite(c.Database, baseDir)

	problems := d.problems
	if err := c.Validate(); err != nil {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		problems = append(problems, withoutCovered(ve.Problems, d.problems)...)
	}
	problems, c.Unused = d.unusedUnset(problems, parts)
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	c.dropEmptyTokens()
	c.warnSources()
	c.warnMetricsToken()
	c.warnAlertSecret()
	c.warnPartitions()
	return c, nil
}

// origin tells where a value came from: the variables it was expanded from,
// or the file it was read from.
type origin struct {
	vars []string
	file string
}

// hint returns a short parenthesised remark telling how to set an empty
// value that came from o, or "".
func (o origin) hint() string {
	switch {
	case o.file != "":
		return fmt.Sprintf(" (file %s is empty)", o.file)
	case len(o.vars) == 1:
		return fmt.Sprintf(" (is %s set?)", o.vars[0])
	case len(o.vars) > 1:
		return fmt.Sprintf(" (are %s set?)", strings.Join(o.vars, ", "))
	}
	return ""
}

// resolveFiles replaces every "file:PATH" secret with the file's contents,
// trailing newlines trimmed.
func (d *decoder) resolveFiles(c *Config, baseDir string) {
	read := func(p *string, path string) {
		name, ok := strings.CutPrefix(*p, "file:")
		if !ok {
			return
		}
		if name == "" {
			d.problem(path, "file: names no file")
			return
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(baseDir, name)
		}
		b, err := readSecretFile(name)
		if err != nil {
			d.problem(path, "read secret file: %v", err)
			*p = ""
			return
		}
		*p = string(bytes.TrimRight(b, "\r\n"))
		d.origins[path] = origin{file: name}
	}
	read(&c.MetricsToken, "metrics_token")
	for i := range c.Tokens {
		read(&c.Tokens[i].Secret, fmt.Sprintf("tokens[%d].secret", i))
	}
	for i := range c.Sources {
		for j := range c.Sources[i].Secrets {
			read(&c.Sources[i].Secrets[j], fmt.Sprintf("sources[%d].secrets[%d]", i, j))
		}
	}
	for i := range c.Destinations {
		read(&c.Destinations[i].Secret, fmt.Sprintf("destinations[%d].secret", i))
	}
	for i := range c.Encryption.Keys {
		read(&c.Encryption.Keys[i].Key, fmt.Sprintf("encryption.keys[%d].key", i))
	}
	read(&c.Alerts.Secret, "alerts.secret")
}

// maxSecretFile bounds the size of a secret file.
const maxSecretFile = 64 << 10

// readSecretFile reads a regular file of at most maxSecretFile bytes, so that
// a path such as /dev/zero or a pipe cannot stall the start.
func readSecretFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSecretFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, maxSecretFile)
	}
	return b, nil
}

// resolveSQLite makes a relative SQLite path absolute against baseDir.
func resolveSQLite(db, baseDir string) string {
	p, ok := sqlitePath(db)
	if !ok || p == "" || p == ":memory:" || filepath.IsAbs(p) || strings.HasPrefix(p, "//") {
		return db
	}
	file, query, hasQuery := strings.Cut(p, "?")
	out := "sqlite:" + filepath.Join(baseDir, file)
	if hasQuery {
		out += "?" + query
	}
	return out
}

// withoutCovered drops the validation problems about a key that already has
// a decoding problem: a value that could not be read should not also be
// reported as missing.
func withoutCovered(problems, decoding []Problem) []Problem {
	var out []Problem
	for _, p := range problems {
		if !slices.ContainsFunc(decoding, func(q Problem) bool { return underAny(p.Path, []string{q.Path}) }) {
			out = append(out, p)
		}
	}
	return out
}

// unusedUnset notes in each problem the unset variables its value came
// from, and splits problems into those that stop a command using only
// parts (all of them when parts is empty) and those it may pass by: a
// problem at a key outside parts whose value came from variables of which
// one or more is unset or empty.
func (d *decoder) unusedUnset(problems []Problem, parts []string) (stop, unused []Problem) {
	for _, p := range problems {
		p.Unset = d.unsetVars(p.Path)
		if len(parts) > 0 && len(p.Unset) > 0 && !underAny(p.Path, parts) {
			unused = append(unused, p)
			continue
		}
		stop = append(stop, p)
	}
	return stop, unused
}

// unsetVars returns the variables the value at path was expanded from
// that are unset or empty.
func (d *decoder) unsetVars(path string) []string {
	var out []string
	for _, v := range d.origins[path].vars {
		if d.getenv(v) == "" {
			out = append(out, v)
		}
	}
	return out
}

// underAny reports whether path is one of the top-level keys or below one.
func underAny(path string, keys []string) bool {
	for _, k := range keys {
		if path == k || strings.HasPrefix(path, k+".") || strings.HasPrefix(path, k+"[") {
			return true
		}
	}
	return false
}
