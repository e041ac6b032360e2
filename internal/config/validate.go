package config

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a configuration, at one key path such as
// "sources[1].verify".
type Problem struct {
	Path    string
	Message string
}

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
	v.problems = append(v.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
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
	v.durationPositive("retention.done", c.Retention.Done)
	v.durationPositive("retention.dead", c.Retention.Dead)
	if c.Alerts.URL != "" {
		v.httpURL("alerts.url", c.Alerts.URL)
	}
	v.ingest()
	v.log()
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
	scheme, _, _ := strings.Cut(db, ":")
	v.add("database", "unknown scheme %q (want sqlite:PATH or postgres://…)", scheme)
}

func sqlitePath(db string) (string, bool) {
	return strings.CutPrefix(db, "sqlite:")
}

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

// name checks a source, destination or token name.
func (v *validator) name(key, name string) {
	if name == "" {
		v.add(key, "required")
		return
	}
	if len(name) > 64 {
		v.add(key, "%q is longer than 64 characters", name)
		return
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			v.add(key, "%q may hold only a-z, 0-9, _ and -", name)
			return
		}
	}
}

// unique reports names seen before under the same kind of key.
func (v *validator) unique(key, name string, seen map[string]string) {
	if name == "" {
		return
	}
	if first, ok := seen[name]; ok {
		v.add(key, "%q is already used by %s", name, first)
		return
	}
	seen[name] = strings.TrimSuffix(key, ".name")
}

func (v *validator) sources() {
	seen := map[string]string{}
	for i := range v.c.Sources {
		s := &v.c.Sources[i]
		p := fmt.Sprintf("sources[%d]", i)
		v.name(p+".name", s.Name)
		v.unique(p+".name", s.Name, seen)
		switch {
		case s.Verify == "":
			v.add(p+".verify", "required (want one of %s)", strings.Join(Schemes, ", "))
		case !slices.Contains(Schemes, s.Verify):
			v.add(p+".verify", "unknown scheme %q (want one of %s)", s.Verify, strings.Join(Schemes, ", "))
		}
		v.durationPositive(p+".tolerance", s.Tolerance)
		if s.MaxBody <= 0 || s.MaxBody > MaxMaxBody {
			v.add(p+".max_body", "%s is out of range (want more than 0 and at most %s)", s.MaxBody, MaxMaxBody)
		}
		if s.AllowSHA1 && s.Verify != "github" {
			v.add(p+".allow_sha1", "only applies to verify: github")
		}
		v.hmac(p+".hmac", s)
		v.dottedPath(p+".id_field", s.IDField)
		v.dottedPath(p+".type_field", s.TypeField)
	}
}

func (v *validator) hmac(p string, s *Source) {
	h := s.HMAC
	if s.Verify != "hmac" {
		if h != (HMAC{}) {
			v.add(p, "only applies to verify: hmac")
		}
		return
	}
	if h.Header == "" {
		v.add(p+".header", "required for verify: hmac (the header that carries the signature)")
	}
	switch h.Algorithm {
	case "sha1", "sha256", "sha512":
	default:
		v.add(p+".algorithm", "unknown algorithm %q (want one of sha1, sha256, sha512)", h.Algorithm)
	}
	switch h.Encoding {
	case "hex", "base64":
	default:
		v.add(p+".encoding", "unknown encoding %q (want hex or base64)", h.Encoding)
	}
}

func (v *validator) destinations() {
	seen := map[string]string{}
	for i := range v.c.Destinations {
		d := &v.c.Destinations[i]
		p := fmt.Sprintf("destinations[%d]", i)
		v.name(p+".name", d.Name)
		v.unique(p+".name", d.Name, seen)
		switch {
		case d.Pull && d.URL != "":
			v.add(p+".url", "set either url or pull: true, not both")
		case !d.Pull && d.URL == "":
			v.add(p+".url", "required (or pull: true for a pull destination)")
		case d.URL != "":
			v.httpURL(p+".url", d.URL)
		}
		v.signingSecret(p+".secret", d.Secret)
		if len(d.Sources) == 0 {
			v.add(p+".sources", "empty (list the sources this destination receives)")
		}
		listed := map[string]bool{}
		for j, src := range d.Sources {
			switch {
			case !v.sourceNames[src]:
				v.add(fmt.Sprintf("%s.sources[%d]", p, j), "no source named %q", src)
			case listed[src]:
				v.add(fmt.Sprintf("%s.sources[%d]", p, j), "%q is listed twice", src)
			}
			listed[src] = true
		}
		for j, t := range d.Types {
			if !validGlob(t) {
				v.add(fmt.Sprintf("%s.types[%d]", p, j), "invalid glob %q", t)
			}
		}
		v.durationPositive(p+".timeout", d.Timeout)
		if d.MaxAttempts < 1 {
			v.add(p+".max_attempts", "%d is less than 1 (the first try counts)", d.MaxAttempts)
		}
		if len(d.Backoff) == 0 && d.MaxAttempts > 1 {
			v.add(p+".backoff", "empty (list at least one wait, e.g. [10s, 1m])")
		}
		for j, b := range d.Backoff {
			v.durationPositive(fmt.Sprintf("%s.backoff[%d]", p, j), b)
		}
		if d.Concurrency < 1 {
			v.add(p+".concurrency", "%d is less than 1", d.Concurrency)
		}
		if !d.Rate.IsZero() && (d.Rate.Events <= 0 || d.Rate.Per <= 0) {
			v.add(p+".rate", "must be more than 0 events per a positive duration")
		}
		v.dottedPath(p+".ordering_key", d.OrderingKey)
	}
}

// signingSecret checks a destination secret: "whsec_" then base64.
func (v *validator) signingSecret(key, secret string) {
	if secret == "" {
		if o, ok := v.c.origins[key]; ok && o.hint() != "" {
			v.add(key, "empty%s", o.hint())
		} else {
			v.add(key, "required (a whsec_… secret that signs what the destination receives)")
		}
		return
	}
	raw, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		v.add(key, "want whsec_ followed by base64")
		return
	}
	if b, err := decodeBase64(raw); err != nil || len(b) == 0 {
		v.add(key, "want whsec_ followed by base64")
	}
}

func decodeBase64(s string) ([]byte, error) {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}

func (v *validator) tokens() {
	seenName := map[string]string{}
	seenSecret := map[string]string{}
	for i := range v.c.Tokens {
		t := &v.c.Tokens[i]
		p := fmt.Sprintf("tokens[%d]", i)
		v.name(p+".name", t.Name)
		v.unique(p+".name", t.Name, seenName)
		if t.Secret != "" {
			if first, ok := seenSecret[t.Secret]; ok {
				v.add(p+".secret", "same secret as %s", first)
			} else {
				seenSecret[t.Secret] = p
			}
		}
		switch t.Role {
		case RoleConsumer:
			if len(t.Destinations) == 0 {
				v.add(p+".destinations", "empty (a consumer token lists the pull destinations it may claim)")
			}
			for j, name := range t.Destinations {
				key := fmt.Sprintf("%s.destinations[%d]", p, j)
				d, ok := v.destNames[name]
				switch {
				case !ok:
					v.add(key, "no destination named %q", name)
				case !d.Pull:
					v.add(key, "%q is not a pull destination", name)
				}
			}
		case RoleRead, RoleAdmin:
			if len(t.Destinations) > 0 {
				v.add(p+".destinations", "only consumer tokens list destinations")
			}
		case "":
			v.add(p+".role", "required (want read, admin or consumer)")
		default:
			v.add(p+".role", "unknown role %q (want read, admin or consumer)", t.Role)
		}
	}
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
