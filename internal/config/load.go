package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads the YAML file at path and returns its configuration with
// ${NAME} values expanded from getenv (os.Getenv when nil), file: secrets
// read, defaults filled and everything validated. A configuration with
// problems is returned as a *ValidationError, not wrapped, so that its text
// is one problem a line; the caller names the file.
func Load(path string, getenv func(string) string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve config path: %w", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := Parse(data, filepath.Dir(abs), getenv)
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
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	c.dropEmptyTokens()
	c.warnSources()
	c.warnMetricsToken()
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
		covered := false
		for _, q := range decoding {
			if p.Path == q.Path || strings.HasPrefix(p.Path, q.Path+".") || strings.HasPrefix(p.Path, q.Path+"[") {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}
