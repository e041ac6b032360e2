package config

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Problem is one thing wrong with a configuration, at one key path such as
// "sources[1].verify".
type Problem struct {
	Path    string
	Message string
	// Unset names the variables the value at Path was expanded from that
	// are unset or empty: setting them may be the fix.
	Unset []string
}

// String returns "path: message".
func (p Problem) String() string { return p.Path + ": " + p.Message }

// ValidationError lists every problem found in a configuration.
type ValidationError struct {
	Problems []Problem
}

// Error returns the problems one per line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// validator collects problems.
type validator struct {
	c        *Config
	problems []Problem
	// sourceNames and destNames index the config by name (the first of
	// each name wins) so that checks stay linear however long the lists.
	sourceNames map[string]bool
	destNames   map[string]*Destination
}

func (v *validator) add(path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if rest, ok := strings.CutPrefix(msg, "required"); ok {
		msg = v.emptyVariables(path) + rest
	}
	v.problems = append(v.problems, Problem{Path: path, Message: msg})
}

// emptyVariables says which variables a value came from when it expanded
// to nothing (`${DATABASE_URL} is empty: set it`), or "required" when it
// was not written with any.
func (v *validator) emptyVariables(path string) string {
	o := v.c.origins[path]
	switch len(o.vars) {
	case 0:
		return "required"
	case 1:
		return fmt.Sprintf("${%s} is empty: set %s", o.vars[0], o.vars[0])
	}
	return fmt.Sprintf("${%s} are empty: set one", strings.Join(o.vars, "}, ${"))
}

// Validate checks c and returns a *ValidationError listing every problem, or
// nil. It does not change c. Tokens with an empty secret are valid (they
// never authenticate); so are sources without a secret (their requests are
// answered 503).
func (c *Config) Validate() error {
	v := &validator{c: c, sourceNames: map[string]bool{}, destNames: map[string]*Destination{}}
	for _, s := range c.Sources {
		v.sourceNames[s.Name] = true
	}
	for i := range c.Destinations {
		if _, ok := v.destNames[c.Destinations[i].Name]; !ok {
			v.destNames[c.Destinations[i].Name] = &c.Destinations[i]
		}
	}
	v.database()
	v.listeners()
	v.sources()
	v.destinations()
	v.tokens()
	v.metricsToken()
	v.durationPositive("retention.done", c.Retention.Done)
	v.durationPositive("retention.dead", c.Retention.Dead)
	v.partitions()
	v.alerts()
	v.ingest()
	v.admin()
	v.log()
	v.fleet()
	v.encryption()
	if len(v.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: v.problems}
}

func (v *validator) database() {
	db := v.c.Database
	if db == "" {
		v.add("database", "required (want sqlite:PATH or postgres://…)")
		return
	}
	if p, ok := sqlitePath(db); ok {
		switch {
		case p == "":
			v.add("database", "sqlite: names no file (want e.g. sqlite:./hookrelay.db)")
		case strings.HasPrefix(p, "//"):
			v.add("database", "write sqlite:PATH, not a URL (e.g. sqlite:./hookrelay.db or sqlite:/var/lib/hookrelay.db)")
		}
		return
	}
	if isPostgresURL(db) {
		if _, err := url.Parse(db); err != nil {
			v.add("database", "invalid postgres URL")
		}
		return
	}
	scheme, _, ok := strings.Cut(db, ":")
	if !ok {
		v.add("database", "%q has no scheme (want sqlite:PATH or postgres://…)", db)
		return
	}
	v.add("database", "unknown scheme %q (want sqlite:PATH or postgres://…)", scheme)
}

// sqlitePath returns the path of a "sqlite:PATH" database.
func sqlitePath(db string) (string, bool) {
	return strings.CutPrefix(db, "sqlite:")
}

// isPostgresURL reports whether db is a postgres:// or postgresql:// URL.
func isPostgresURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

func (v *validator) listeners() {
	ok1 := v.hostPort("listen", v.c.Listen)
	ok2 := v.hostPort("admin_listen", v.c.AdminListen)
	if ok1 && ok2 && sameListener(v.c.Listen, v.c.AdminListen) {
		v.add("admin_listen", "same address as listen %q (the admin API must never share the public listener)", v.c.Listen)
	}
}

func (v *validator) hostPort(key, addr string) bool {
	if addr == "" {
		v.add(key, "required (want host:port, e.g. :8080)")
		return false
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		v.add(key, "invalid address %q (want host:port, e.g. :8080)", addr)
		return false
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		v.add(key, "invalid port %q (want 0 to 65535)", port)
		return false
	}
	return true
}

// sameListener reports whether two host:port addresses would collide: the
// same port on the same host, or on a wildcard host. Port 0 (any free port)
// never collides.
func sameListener(a, b string) bool {
	ha, pa, _ := net.SplitHostPort(a)
	hb, pb, _ := net.SplitHostPort(b)
	pna, _ := strconv.Atoi(pa)
	pnb, _ := strconv.Atoi(pb)
	if pna == 0 || pna != pnb {
		return false
	}
	wild := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" || h == "[::]" }
	return ha == hb || wild(ha) || wild(hb)
}

func (v *validator) ingest() {
	in := v.c.Ingest
	for _, f := range []struct {
		key string
		n   int
	}{
		{"ingest.max_concurrency", in.MaxConcurrency},
		{"ingest.rejections_keep", in.RejectionsKeep},
		{"ingest.rejections_per_second", in.RejectionsPerSecond},
	} {
		if f.n < 1 {
			v.add(f.key, "%d is less than 1", f.n)
		}
	}
	v.durationPositive("ingest.read_header_timeout", in.ReadHeaderTimeout)
	v.durationPositive("ingest.read_timeout", in.ReadTimeout)
	v.durationPositive("ingest.write_timeout", in.WriteTimeout)
	v.durationPositive("ingest.idle_timeout", in.IdleTimeout)
	if in.MaxInflightBytes < MiB {
		v.add("ingest.max_inflight_bytes", "%d bytes is less than 1MiB", int64(in.MaxInflightBytes))
	}
	if in.MinUploadRate < 0 {
		v.add("ingest.min_upload_rate", "%d bytes a second is negative (0 sets no floor)", int64(in.MinUploadRate))
	}
	if in.MaxConnections < 0 {
		v.add("ingest.max_connections", "%d is negative (0 derives it from the descriptor limit)", in.MaxConnections)
	}
}

func (v *validator) admin() {
	a := v.c.Admin
	if a.MaxConnections < 0 {
		v.add("admin.max_connections", "%d is negative (0 derives it from the descriptor limit)", a.MaxConnections)
	}
	v.durationPositive("admin.read_header_timeout", a.ReadHeaderTimeout)
	v.durationPositive("admin.read_timeout", a.ReadTimeout)
	v.durationPositive("admin.idle_timeout", a.IdleTimeout)
}

// fleet checks the runner's lease: at least a second, which the runner
// renews every third of.
// partitions checks retention.partitions: a period, on PostgreSQL.
func (v *validator) partitions() {
	p := v.c.Retention.Partitions
	switch {
	case p == "":
	case p != "daily" && p != "hourly":
		v.add("retention.partitions", "%q is not a period (want daily or hourly, or leave it out)", p)
	case !isPostgresURL(v.c.Database):
		v.add("retention.partitions", "partitions are PostgreSQL's: a SQLite event log is pruned row by row; remove the key, or use a postgres:// database")
	}
}

func (v *validator) fleet() {
	if l := v.c.Fleet.RunnerLease; l < Duration(time.Second) {
		v.add("fleet.runner_lease", "%s is less than 1s", l)
	}
}

func (v *validator) log() {
	switch v.c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		v.add("log.level", "unknown level %q (want debug, info, warn or error)", v.c.Log.Level)
	}
	switch v.c.Log.Format {
	case "json", "text":
	default:
		v.add("log.format", "unknown format %q (want json or text)", v.c.Log.Format)
	}
}

func (v *validator) durationPositive(key string, d Duration) {
	if d <= 0 {
		v.add(key, "%s is not more than 0", d)
	}
}

func (v *validator) httpURL(key, raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.add(key, "want an absolute http or https URL")
	}
}

// dottedPath checks a path into a JSON body such as "data.object.id".
func (v *validator) dottedPath(key, p string) {
	if p == "" {
		return
	}
	if slices.Contains(strings.Split(p, "."), "") {
		v.add(key, "%q has an empty segment (want e.g. data.object.id)", p)
	}
}

// validGlob reports whether pattern is a non-empty path.Match pattern.
func validGlob(pattern string) bool {
	if pattern == "" {
		return false
	}
	_, err := path.Match(pattern, "")
	return err == nil
}
