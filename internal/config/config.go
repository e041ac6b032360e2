// Package config loads hookrelay's configuration: one YAML file whose secrets
// come from the environment (${NAME}) or from files (file:PATH), never from
// the file itself. Load reads, expands, decodes, fills defaults and validates
// it; a bad file is reported with every problem at once, each naming its key
// path.
//
// Expansion happens inside scalar values after the YAML is parsed, never in
// the raw text, so a variable's value cannot add keys; "$${" writes a literal
// "${". Unknown keys are errors, except top-level keys that start with "x-",
// which hold YAML anchors for merging (<<: *name) into several entries.
package config

import (
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// Config is hookrelay's whole configuration. Its yaml tags are the key names
// of the file; Path and Warnings are not read from the file.
type Config struct {
	// Path is the absolute path of the file the configuration was loaded
	// from, or empty when it was parsed from bytes.
	Path string `yaml:"-"`
	// Warnings lists problems that do not stop hookrelay but that an
	// operator must hear about: dropped tokens, sources without a secret,
	// sources that verify nothing. Parse fills it; serve logs it.
	Warnings []string `yaml:"-"`
	// Unused lists the problems LoadParts passed by: keys outside the
	// parts a command uses whose variables are unset. serve would refuse
	// them; a command prints them as warnings.
	Unused []Problem `yaml:"-"`
	// AdminTokenFile is the file holding the admin token serve generated
	// because the config has none (see the README's first run), or "":
	// what a refused caller is told to read.
	AdminTokenFile string `yaml:"-"`

	// Database is "sqlite:PATH" or a "postgres://…" / "postgresql://…" URL.
	// A relative SQLite path is resolved against the config file's directory.
	Database string `yaml:"database"`
	// Listen is the public ingest listener, host:port.
	Listen string `yaml:"listen"`
	// AdminListen is the admin API, console and metrics listener, host:port.
	AdminListen string `yaml:"admin_listen"`
	// MetricsToken, when set, is the bearer token GET /metrics requires;
	// empty leaves /metrics open on the admin listener.
	MetricsToken string `yaml:"metrics_token,omitempty"`
	// Tokens are the bearer tokens of the admin API and console; a token
	// whose secret is empty is left out with a warning.
	Tokens []Token `yaml:"tokens"`
	// Sources are the providers that post to /webhooks/{name}.
	Sources []Source `yaml:"sources"`
	// Destinations receive the events of their sources.
	Destinations []Destination `yaml:"destinations"`
	// Retention says how long finished events are kept.
	Retention Retention `yaml:"retention"`
	// Alerts says where dead letters and signature failures are reported.
	Alerts Alerts `yaml:"alerts,omitempty"`
	// Ingest tunes the public listener, against floods and slow clients.
	Ingest Ingest `yaml:"ingest"`
	// Admin tunes the admin listener.
	Admin Admin `yaml:"admin"`
	// Log configures hookrelay's own logs.
	Log Log `yaml:"log"`
	// Fleet tunes how the processes that share one database pick the one
	// that runs what must run once (retention and alert evaluation), and
	// how soon one takes over the jobs of a process that died.
	Fleet Fleet `yaml:"fleet"`
	// Encryption, when it lists keys, seals the payloads hookrelay stores.
	Encryption Encryption `yaml:"encryption,omitempty"`

	// origins records, by key path, where an expanded or file-read value
	// came from, so that Validate can say which variable to set.
	origins map[string]origin
}

// Roles a token may have.
const (
	RoleRead     = "read"     // may read events, stats and the console
	RoleAdmin    = "admin"    // may do everything, replay included
	RoleConsumer = "consumer" // may claim and ack its listed pull destinations
)

// Token is a bearer token of the admin API.
type Token struct {
	// Name is who the token is in logs and the audit log.
	Name string `yaml:"name"`
	// Role is read (look), admin (act: replay, backfill, purge, pause) or
	// consumer (claim from its pull destinations).
	Role string `yaml:"role"`
	// Secret is the bearer value. An empty secret never authenticates:
	// such a token is left out, with a warning.
	Secret string `yaml:"secret"`
	// Destinations lists the pull destinations a consumer token may claim
	// from; it is empty for every other role.
	Destinations []string `yaml:"destinations,omitempty"`
	// Local marks the admin token serve generated for its own loopback
	// listener (see Config.AdminTokenFile): each node has its own, so it
	// is not part of the configuration a fleet shares (Fingerprint).
	Local bool `yaml:"-"`
}

// Source is a provider that posts to /webhooks/{name}.
type Source struct {
	// Name is the {source} of the ingest URL: a-z, 0-9, _ and -.
	Name string `yaml:"name"`
	// Verify is the signature scheme: a provider's preset or hmac, or none
	// (local use only).
	Verify string `yaml:"verify"`
	// Secrets are the active secrets, numbered by their place from slot 0.
	// An empty entry (an unset variable) keeps its slot but never matches.
	Secrets []string `yaml:"secrets"`
	// Tolerance is how far a signed timestamp may be from now; when the
	// file leaves it out, the default of the scheme's provider.
	Tolerance Duration `yaml:"tolerance"`
	// MaxBody is the largest body accepted; larger ones are answered 413.
	MaxBody ByteSize `yaml:"max_body"`
	// AllowSHA1 accepts GitHub's legacy X-Hub-Signature (sha1) header.
	AllowSHA1 bool `yaml:"allow_sha1,omitempty"`
	// HMAC configures the generic "hmac" scheme.
	HMAC HMAC `yaml:"hmac,omitempty"`
	// PublicURL is the URL the provider calls, as it sees it; twilio and
	// square sign it.
	PublicURL string `yaml:"public_url,omitempty"`
	// PublicKeys verify the public-key schemes (discord, sendgrid, and
	// standard's v1a), numbered after the secrets; an empty entry keeps
	// its slot.
	PublicKeys []string `yaml:"public_keys,omitempty"`
	// VerifyToken is what Meta's subscription check must carry.
	VerifyToken string `yaml:"verify_token,omitempty"`
	// IDHeader names the request header the provider's event id is read
	// from (hmac and none sources).
	IDHeader string `yaml:"id_header,omitempty"`
	// IDField is the dotted path into the JSON body the provider's event
	// id is read from, when no header carries it.
	IDField string `yaml:"id_field,omitempty"`
	// TypeHeader names the request header the event type is read from.
	TypeHeader string `yaml:"type_header,omitempty"`
	// TypeField is the dotted path into the JSON body the event type is
	// read from, when no header carries it.
	TypeField string `yaml:"type_field,omitempty"`
}

// HMAC holds the options of the generic "hmac" scheme.
type HMAC struct {
	// Header carries the signature; required.
	Header string `yaml:"header,omitempty"`
	// Algorithm is sha1, sha256 (the default) or sha512.
	Algorithm string `yaml:"algorithm,omitempty"`
	// Encoding of the digest: hex (the default) or base64.
	Encoding string `yaml:"encoding,omitempty"`
	// Prefix precedes the digest in the header, e.g. "sha256=".
	Prefix string `yaml:"prefix,omitempty"`
	// TimestampHeader, when set, carries a signed timestamp checked against
	// the source's tolerance.
	TimestampHeader string `yaml:"timestamp_header,omitempty"`
	// SignedContent is the template of the signed bytes; empty means the
	// raw body alone.
	SignedContent string `yaml:"signed_content,omitempty"`
}

// Destination receives events: pushed to URL, or claimed from a pull queue.
type Destination struct {
	// Name names the destination in the API, the CLI and metrics.
	Name string `yaml:"name"`
	// URL is the absolute http(s) URL events are POSTed to; none for a
	// pull destination.
	URL string `yaml:"url,omitempty"`
	// Pull makes the destination a queue claimed over the admin API.
	Pull bool `yaml:"pull,omitempty"`
	// Handler makes the destination one whose deliveries a Go function
	// handles inside the transaction that records them (package hookrelay,
	// Relay.Handle). It is set in code, never read from a file.
	Handler bool `yaml:"-"`
	// Secret (whsec_…) signs what the destination receives.
	Secret string `yaml:"secret"`
	// Sources lists the sources whose events the destination receives.
	Sources []string `yaml:"sources"`
	// Types are event-type globs (path.Match syntax); empty means every type.
	Types []string `yaml:"types,omitempty"`
	// Timeout bounds one attempt.
	Timeout Duration `yaml:"timeout"`
	// MaxAttempts counts every try, the first included.
	MaxAttempts int `yaml:"max_attempts"`
	// Backoff is the wait before each retry; the last step repeats.
	Backoff []Duration `yaml:"backoff"`
	// Concurrency is the most deliveries in flight at once.
	Concurrency int `yaml:"concurrency"`
	// Rate caps deliveries per unit of time; none sets no limit.
	Rate Rate `yaml:"rate,omitempty"`
	// OrderingKey is a dotted path into the JSON body; deliveries with the
	// same key go one at a time, oldest first.
	OrderingKey string `yaml:"ordering_key,omitempty"`
	// ForwardHeaders also sends the original provider headers.
	ForwardHeaders bool `yaml:"forward_headers,omitempty"`
}

// Kind is "push", "pull" or "handler".
func (d Destination) Kind() string {
	switch {
	case d.Handler:
		return "handler"
	case d.Pull:
		return "pull"
	}
	return "push"
}

// Retention says how long finished events are kept.
type Retention struct {
	// Done is how long an event whose deliveries all finished well is kept.
	Done Duration `yaml:"done"`
	// Dead is how long an event with a dead delivery is kept.
	Dead Duration `yaml:"dead"`
	// Partitions, on PostgreSQL, splits the event log into one partition
	// per UTC day ("daily") or hour ("hourly"), which retention drops
	// whole once the longer of done and dead has passed its end, instead
	// of deleting its rows (see docs/retention.md); empty keeps one table,
	// pruned row by row. A database that holds events is converted by
	// `hookrelay partitions enable`, one that holds none by migrate.
	Partitions string `yaml:"partitions,omitempty"`
}

// PartitionsKept is how many partitions of each table a partitioned
// event log keeps at most: those of the longer retention and those
// created ahead. The queries that cannot skip partitions by their time
// (a claim, a lookup by delivery id) slow down with their number.
func (r Retention) PartitionsKept() int {
	period := map[string]time.Duration{"daily": 24 * time.Hour, "hourly": time.Hour}[r.Partitions]
	if period == 0 {
		return 0
	}
	keep := max(r.Done.Std(), r.Dead.Std())
	ahead := map[string]int{"daily": 3, "hourly": 7}[r.Partitions]
	return int((keep+period-1)/period) + 1 + ahead
}

// Alerts configures where operators hear about dead letters and about
// sources whose signatures keep failing.
type Alerts struct {
	// URL, when set, receives a POST for every delivery that goes dead, and
	// for every signature-failure alert.
	URL string `yaml:"url,omitempty"`
	// Format is how an alert is written: json (its kind, a one-line
	// summary, its ids and counts, and a console link) or slack (an
	// incoming-webhook body, {"text": …}, which Slack, Mattermost and
	// Discord's Slack-compatible endpoints accept).
	Format string `yaml:"format,omitempty"`
	// Secret (whsec_…, from ${NAME} or file:PATH like every secret), when
	// set, signs every alert as a push delivery is signed (Standard
	// Webhooks headers), so that the receiver can verify it; without it
	// alerts go unsigned.
	Secret string `yaml:"secret,omitempty"`
	// ConsoleURL is the web console's base URL as operators reach it (e.g.
	// https://relay.example.com:8081); when set, every alert links to the
	// console page that shows it.
	ConsoleURL string `yaml:"console_url,omitempty"`
	// SignatureFailures says when a source's rejections are an alert.
	SignatureFailures SignatureFailures `yaml:"signature_failures,omitempty"`
}

// Alert formats, the values of alerts.format.
const (
	AlertFormatJSON  = "json"
	AlertFormatSlack = "slack"
)

// AlertFormats lists the values alerts.format accepts.
var AlertFormats = []string{AlertFormatJSON, AlertFormatSlack}

// SignatureFailures sets the rate of rejected requests (bad or missing
// signatures, stale timestamps) above which a source raises an alert: more
// than Rate over one Window. The zero Rate raises none.
type SignatureFailures struct {
	// Rate is the rate of rejections above which a source raises an
	// alert; none raises none.
	Rate Rate `yaml:"rate,omitempty"`
	// Window is how long rejections are counted; a source raises at most
	// one alert per window.
	Window Duration `yaml:"window,omitempty"`
}

// Threshold is how many rejections in one window raise the alert.
func (f SignatureFailures) Threshold() float64 {
	if f.Rate.IsZero() || f.Rate.Per <= 0 {
		return 0
	}
	return float64(f.Rate.Events) * float64(f.Window) / float64(f.Rate.Per)
}

// Ingest tunes the public listener.
type Ingest struct {
	// MaxConcurrency caps requests being verified and stored at once;
	// beyond it the receiver answers 503 with Retry-After. A request takes
	// its place only once its body has been read or its first 16 KiB have
	// arrived, so a slow upload holds none. One address may have at most
	// 256 bodies arriving at once (before their first 16 KiB); beyond that
	// its slowest is cut off with 503 and Retry-After. These limits and
	// the byte budget are shared by the receivers a reload replaces.
	MaxConcurrency int `yaml:"max_concurrency"`
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout Duration `yaml:"read_header_timeout"`
	// ReadTimeout bounds reading a whole request, body included.
	ReadTimeout Duration `yaml:"read_timeout"`
	// WriteTimeout bounds handling a request and writing its answer.
	WriteTimeout Duration `yaml:"write_timeout"`
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request.
	IdleTimeout Duration `yaml:"idle_timeout"`
	// MinUploadRate is the slowest, in bytes a second, that a request body
	// may arrive on average once its first 10 s have passed; a slower one
	// is cut off with 408. 0 sets no floor (read_timeout still applies).
	MinUploadRate ByteSize `yaml:"min_upload_rate"`
	// MaxInflightBytes caps the request body bytes held in memory at once;
	// a request waits briefly for room, then is answered 503.
	MaxInflightBytes ByteSize `yaml:"max_inflight_bytes"`
	// RejectionsKeep bounds how many rejection records are kept.
	RejectionsKeep int `yaml:"rejections_keep"`
	// RejectionsPerSecond bounds how many rejections per second are
	// recorded for one source.
	RejectionsPerSecond int `yaml:"rejections_per_second"`
	// MaxConnections caps the connections open at once; further ones wait
	// in the kernel's queue. 0 derives it from the process's descriptor
	// limit: 7/8 of what is left once a quarter of the limit (at least
	// 128) plus one per destination concurrency slot is kept for the
	// database, deliveries and logs.
	MaxConnections int `yaml:"max_connections"`
}

// Fleet tunes the election, among the processes that share one database,
// of the fleet's runner: the one process that runs retention and evaluates
// the signature-failure rule; and the leases of the replay and backfill
// jobs, by which a job whose process dies is taken over by another.
type Fleet struct {
	// RunnerLease is how long the runner's lease lasts unless renewed (it
	// is renewed every third of it): when the runner dies, another process
	// takes over within about that long; when it stops, at once. A replay
	// or backfill job holds a lease as long, renewed as it runs: the jobs
	// of a process that dies wait about that long (and up to a third more)
	// before another process takes them over and finishes them. Give
	// every process of a fleet the same.
	RunnerLease Duration `yaml:"runner_lease"`
}

// Admin tunes the admin listener, against clients that hold connections
// open without finishing a request.
type Admin struct {
	// MaxConnections caps the connections open at once; 0 derives it from
	// the process's descriptor limit: 1/8 of what the public listener's
	// share leaves, at least 16.
	MaxConnections int `yaml:"max_connections"`
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout Duration `yaml:"read_header_timeout"`
	// ReadTimeout bounds reading a whole request, body included.
	ReadTimeout Duration `yaml:"read_timeout"`
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request.
	IdleTimeout Duration `yaml:"idle_timeout"`
}

// Log configures hookrelay's own logs.
type Log struct {
	// Level is debug, info, warn or error.
	Level string `yaml:"level"`
	// Format is json or text.
	Format string `yaml:"format"`
}

// Default values.
const (
	DefaultDatabase    = "sqlite:./hookrelay.db"
	DefaultListen      = ":8080"
	DefaultAdminListen = "127.0.0.1:8081"
	DefaultMaxBody     = 1 * MiB
	// MaxMaxBody is the largest max_body a source may set.
	MaxMaxBody = 64 * MiB
)

// DefaultBackoff is the retry schedule of a destination that sets none.
var DefaultBackoff = []Duration{
	Duration(10 * time.Second), Duration(time.Minute), Duration(5 * time.Minute),
	Duration(30 * time.Minute), Duration(2 * time.Hour), Duration(8 * time.Hour),
}

// Default returns a Config holding every top-level default and no tokens,
// sources or destinations.
func Default() *Config {
	return &Config{
		Database:    DefaultDatabase,
		Listen:      DefaultListen,
		AdminListen: DefaultAdminListen,
		Retention: Retention{
			Done: Duration(30 * 24 * time.Hour),
			Dead: Duration(90 * 24 * time.Hour),
		},
		Ingest: Ingest{
			MaxConcurrency:      512,
			ReadHeaderTimeout:   Duration(5 * time.Second),
			ReadTimeout:         Duration(30 * time.Second),
			WriteTimeout:        Duration(30 * time.Second),
			IdleTimeout:         Duration(120 * time.Second),
			MaxInflightBytes:    64 * MiB,
			MinUploadRate:       KiB,
			RejectionsKeep:      10000,
			RejectionsPerSecond: 50,
		},
		Admin: Admin{
			ReadHeaderTimeout: Duration(5 * time.Second),
			ReadTimeout:       Duration(10 * time.Second),
			IdleTimeout:       Duration(60 * time.Second),
		},
		Log:    Log{Level: "info", Format: "json"},
		Fleet:  Fleet{RunnerLease: Duration(15 * time.Second)},
		Alerts: Alerts{Format: AlertFormatJSON, SignatureFailures: SignatureFailures{Window: Duration(5 * time.Minute)}},
	}
}

// DefaultSource returns a Source verified by the scheme verify holding
// every default; its tolerance is the scheme's provider's own
// (signature.DefaultToleranceOf: Linear one minute, Paddle five seconds,
// five minutes for the others).
func DefaultSource(verify string) Source {
	return Source{Verify: verify, Tolerance: Duration(signature.DefaultToleranceOf(verify)), MaxBody: DefaultMaxBody}
}

// DefaultDestination returns a Destination holding every default.
func DefaultDestination() Destination {
	return Destination{
		Timeout:     Duration(10 * time.Second),
		MaxAttempts: 7,
		Backoff:     append([]Duration(nil), DefaultBackoff...),
		Concurrency: 4,
	}
}

// fillHMACDefaults sets the generic scheme's algorithm and encoding when a
// source uses it and leaves them out.
func (s *Source) fillHMACDefaults() {
	if s.Verify != "hmac" {
		return
	}
	if s.HMAC.Algorithm == "" {
		s.HMAC.Algorithm = "sha256"
	}
	if s.HMAC.Encoding == "" {
		s.HMAC.Encoding = "hex"
	}
}

// Source returns the source with the given name.
func (c *Config) Source(name string) (*Source, bool) {
	for i := range c.Sources {
		if c.Sources[i].Name == name {
			return &c.Sources[i], true
		}
	}
	return nil, false
}

// Destination returns the destination with the given name.
func (c *Config) Destination(name string) (*Destination, bool) {
	for i := range c.Destinations {
		if c.Destinations[i].Name == name {
			return &c.Destinations[i], true
		}
	}
	return nil, false
}

// DatabaseDriver splits Database into the driver name, "sqlite" or
// "postgres", and what that driver opens: a file path or the URL itself.
// It returns empty strings for a database it does not recognize.
func (c *Config) DatabaseDriver() (driver, dsn string) {
	if p, ok := sqlitePath(c.Database); ok {
		return "sqlite", p
	}
	if isPostgresURL(c.Database) {
		return "postgres", c.Database
	}
	return "", ""
}

// ActiveKeys reports whether the source has a non-empty secret or public
// key, so that it can verify something.
func (s *Source) ActiveKeys() bool {
	return s.ActiveSecrets() || slices.ContainsFunc(s.PublicKeys, func(k string) bool { return k != "" })
}

// ActiveSecrets reports whether the source has at least one non-empty secret.
func (s *Source) ActiveSecrets() bool {
	for _, sec := range s.Secrets {
		if sec != "" {
			return true
		}
	}
	return false
}
