package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// validDoc is a configuration that passes validation; each test case below
// breaks one thing in it.
const validDoc = `
tokens:
  - {name: ops, role: admin, secret: ops-token}
  - {name: alice, role: consumer, secret: alice-token, destinations: [dev-alice]}
sources:
  - {name: stripe, verify: stripe, secrets: [s1]}
  - {name: github, verify: github, secrets: [s2], allow_sha1: true}
  - {name: partner, verify: hmac, secrets: [s3], hmac: {header: X-Sig}, id_field: meta.id}
destinations:
  - {name: billing, url: "https://billing.internal/hooks", secret: ` + testSigning + `, sources: [stripe], types: ["invoice.*"], ordering_key: data.object.id, rate: 10/s}
  - {name: dev-alice, pull: true, secret: ` + testSigning + `, sources: [stripe, github]}
`

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   []string // nil: valid
	}{
		{"valid", func(c *Config) {}, nil},

		// database
		{"database missing", func(c *Config) { c.Database = "" }, []string{"database: required (want sqlite:PATH or postgres://…)"}},
		{"database scheme", func(c *Config) { c.Database = "mysql://db/x" }, []string{`database: unknown scheme "mysql" (want sqlite:PATH or postgres://…)`}},
		{"database bare path", func(c *Config) { c.Database = "hookrelay.db" }, []string{`database: "hookrelay.db" has no scheme (want sqlite:PATH or postgres://…)`}},
		{"database sqlite no path", func(c *Config) { c.Database = "sqlite:" }, []string{"database: sqlite: names no file (want e.g. sqlite:./hookrelay.db)"}},
		{"database sqlite URL", func(c *Config) { c.Database = "sqlite:///var/x.db" }, []string{"database: write sqlite:PATH, not a URL (e.g. sqlite:./hookrelay.db or sqlite:/var/lib/hookrelay.db)"}},
		{"database postgres", func(c *Config) { c.Database = "postgres://u@h/db" }, nil},
		{"database postgresql", func(c *Config) { c.Database = "postgresql://u:p@h:5432/db?sslmode=require" }, nil},
		{"database postgres bad URL", func(c *Config) { c.Database = "postgres://u@h:port/db" }, []string{"database: invalid postgres URL"}},

		// listeners
		{"listen missing", func(c *Config) { c.Listen = "" }, []string{"listen: required (want host:port, e.g. :8080)"}},
		{"listen no port", func(c *Config) { c.Listen = "8080" }, []string{`listen: invalid address "8080" (want host:port, e.g. :8080)`}},
		{"listen named port", func(c *Config) { c.Listen = ":http" }, []string{`listen: invalid port "http" (want 0 to 65535)`}},
		{"admin port out of range", func(c *Config) { c.AdminListen = "127.0.0.1:70000" }, []string{`admin_listen: invalid port "70000" (want 0 to 65535)`}},
		{"listeners equal", func(c *Config) { c.Listen, c.AdminListen = ":9000", ":9000" }, []string{`admin_listen: same address as listen ":9000" (the admin API must never share the public listener)`}},
		{"listeners collide on wildcard", func(c *Config) { c.Listen, c.AdminListen = ":9000", "127.0.0.1:9000" }, []string{`admin_listen: same address as listen ":9000" (the admin API must never share the public listener)`}},
		{"listeners same port, other hosts", func(c *Config) { c.Listen, c.AdminListen = "10.0.0.1:9000", "127.0.0.1:9000" }, nil},
		{"listeners both any port", func(c *Config) { c.Listen, c.AdminListen = "127.0.0.1:0", "127.0.0.1:0" }, nil},
		{"listen IPv6", func(c *Config) { c.Listen = "[::1]:8080" }, nil},

		// sources
		{"source name missing", func(c *Config) { c.Sources[0].Name = "" }, []string{"sources[0].name: required", `destinations[0].sources[0]: no source named "stripe"`, `destinations[1].sources[0]: no source named "stripe"`}},
		{"source name charset", func(c *Config) { c.Sources[2].Name = "Partner.io" }, []string{`sources[2].name: "Partner.io" may hold only a-z, 0-9, _ and -`}},
		{"source name too long", func(c *Config) { c.Sources[2].Name = strings.Repeat("a", 65) }, []string{`sources[2].name: "` + strings.Repeat("a", 65) + `" is longer than 64 characters`}},
		{"source name duplicate", func(c *Config) { c.Sources[2].Name = "stripe" }, []string{`sources[2].name: "stripe" is already used by sources[0]`}},
		{"verify unknown", func(c *Config) { c.Sources[1].Verify = "strpe" }, []string{`sources[1].verify: unknown scheme "strpe" (did you mean "stripe"?) (want one of stripe, github, shopify, standard, slack, gitlab, hmac, none, twilio, paddle, zoom, meta, discord, sendgrid, mailgun, square, linear, intercom, msgraph)`, "sources[1].allow_sha1: only applies to verify: github"}},
		{"verify missing", func(c *Config) { c.Sources[0].Verify = "" }, []string{"sources[0].verify: required (want one of stripe, github, shopify, standard, slack, gitlab, hmac, none, twilio, paddle, zoom, meta, discord, sendgrid, mailgun, square, linear, intercom, msgraph)"}},
		{"every scheme", func(c *Config) {
			for _, s := range []string{"shopify", "standard", "slack", "gitlab", "none"} {
				c.Sources = append(c.Sources, Source{Name: s, Verify: s, Tolerance: Duration(time.Second), MaxBody: 1})
			}
		}, nil},
		{"tolerance zero", func(c *Config) { c.Sources[0].Tolerance = 0 }, []string{"sources[0].tolerance: 0s is not more than 0"}},
		{"tolerance negative", func(c *Config) { c.Sources[0].Tolerance = Duration(-time.Minute) }, []string{"sources[0].tolerance: -1m is not more than 0"}},
		{"max_body zero", func(c *Config) { c.Sources[0].MaxBody = 0 }, []string{"sources[0].max_body: 0 is out of range (want more than 0 and at most 64MiB)"}},
		{"max_body too big", func(c *Config) { c.Sources[0].MaxBody = 64*MiB + 1 }, []string{"sources[0].max_body: 67108865 is out of range (want more than 0 and at most 64MiB)"}},
		{"max_body at limit", func(c *Config) { c.Sources[0].MaxBody = 64 * MiB }, nil},
		{"allow_sha1 not github", func(c *Config) { c.Sources[0].AllowSHA1 = true }, []string{"sources[0].allow_sha1: only applies to verify: github"}},
		{"hmac options not hmac", func(c *Config) { c.Sources[0].HMAC.Prefix = "sha256=" }, []string{"sources[0].hmac: only applies to verify: hmac"}},
		{"hmac header missing", func(c *Config) { c.Sources[2].HMAC.Header = "" }, []string{"sources[2].hmac.header: required for verify: hmac (the header that carries the signature)"}},
		{"hmac algorithm", func(c *Config) { c.Sources[2].HMAC.Algorithm = "md5" }, []string{`sources[2].hmac.algorithm: unknown algorithm "md5" (want one of sha1, sha256, sha512)`}},
		{"hmac encoding", func(c *Config) { c.Sources[2].HMAC.Encoding = "base32" }, []string{`sources[2].hmac.encoding: unknown encoding "base32" (want hex or base64)`}},
		{"hmac every option", func(c *Config) {
			c.Sources[2].HMAC = HMAC{Header: "X-Sig", Algorithm: "sha512", Encoding: "base64", Prefix: "v1=", TimestampHeader: "X-Ts", SignedContent: "{timestamp}.{body}"}
		}, nil},
		{"id_field empty segment", func(c *Config) { c.Sources[2].IDField = "meta..id" }, []string{`sources[2].id_field: "meta..id" has an empty segment (want e.g. data.object.id)`}},
		{"type_field empty segment", func(c *Config) { c.Sources[2].TypeField = "type." }, []string{`sources[2].type_field: "type." has an empty segment (want e.g. data.object.id)`}},
		{"source without secrets", func(c *Config) { c.Sources[0].Secrets = nil }, nil},
		{"every provider preset", func(c *Config) {
			for _, s := range []Source{
				{Name: "twilio", Verify: "twilio", PublicURL: "https://relay.example.com/webhooks/twilio"},
				{Name: "square", Verify: "square", PublicURL: "https://relay.example.com/webhooks/square"},
				{Name: "meta", Verify: "meta", VerifyToken: "t"},
				{Name: "discord", Verify: "discord", PublicKeys: []string{"", testDiscordKey}},
				{Name: "sendgrid", Verify: "sendgrid", PublicKeys: []string{testSendGridKey}},
				{Name: "standard", Verify: "standard", PublicKeys: []string{testWhpk}},
				{Name: "paddle", Verify: "paddle"}, {Name: "zoom", Verify: "zoom"}, {Name: "mailgun", Verify: "mailgun"},
				{Name: "linear", Verify: "linear"}, {Name: "intercom", Verify: "intercom"}, {Name: "msgraph", Verify: "msgraph"},
			} {
				s.Tolerance, s.MaxBody = Duration(time.Second), 1
				c.Sources = append(c.Sources, s)
			}
		}, nil},
		{"public_url missing", func(c *Config) { c.Sources[0].Verify = "twilio" },
			[]string{"sources[0].public_url: required for verify: twilio (the URL the provider calls, as it sees it)"}},
		{"public_url relative", func(c *Config) { c.Sources[0].Verify, c.Sources[0].PublicURL = "square", "/webhooks/square" },
			[]string{"sources[0].public_url: want an absolute http or https URL"}},
		{"public_url not used", func(c *Config) { c.Sources[0].PublicURL = "https://x/y" },
			[]string{"sources[0].public_url: only applies to verify: twilio or square"}},
		{"public_keys bad", func(c *Config) {
			c.Sources[0].Verify, c.Sources[0].Secrets, c.Sources[0].PublicKeys = "discord", nil, []string{testDiscordKey, "abc"}
		}, []string{"sources[0].public_keys[1]: want 64 hex digits (an Ed25519 public key)"}},
		{"public_keys whpk bad", func(c *Config) { c.Sources[0].Verify, c.Sources[0].PublicKeys = "standard", []string{testDiscordKey} },
			[]string{"sources[0].public_keys[0]: want whpk_ then the padded base64 of a 32-byte Ed25519 public key"}},
		{"public_keys not used", func(c *Config) { c.Sources[0].PublicKeys = []string{testDiscordKey} },
			[]string{"sources[0].public_keys: only applies to verify: discord, sendgrid or standard"}},
		{"secrets on a public-key scheme", func(c *Config) { c.Sources[0].Verify, c.Sources[0].PublicKeys = "sendgrid", []string{testSendGridKey} },
			[]string{"sources[0].secrets: not used by verify: sendgrid, which verifies with public_keys"}},
		{"verify_token not used", func(c *Config) { c.Sources[0].VerifyToken = "t" },
			[]string{"sources[0].verify_token: only applies to verify: meta"}},

		// destinations
		{"destination name missing", func(c *Config) { c.Destinations[0].Name = "" }, []string{"destinations[0].name: required"}},
		{"destination name charset", func(c *Config) { c.Destinations[0].Name = "Billing" }, []string{`destinations[0].name: "Billing" may hold only a-z, 0-9, _ and -`}},
		{"destination name duplicate", func(c *Config) { c.Destinations[1].Name = "billing" }, []string{`destinations[1].name: "billing" is already used by destinations[0]`, `tokens[1].destinations[0]: no destination named "dev-alice"`}},
		{"url and pull", func(c *Config) { c.Destinations[0].Pull = true }, []string{"destinations[0].url: set either url or pull: true, not both"}},
		{"neither url nor pull", func(c *Config) { c.Destinations[0].URL = "" }, []string{"destinations[0].url: required (or pull: true for a pull destination)"}},
		{"handler without url or secret", func(c *Config) {
			c.Destinations[0].URL, c.Destinations[0].Secret, c.Destinations[0].Handler = "", "", true
		}, nil},
		{"handler with url", func(c *Config) { c.Destinations[0].Handler = true }, []string{"destinations[0].url: a handler destination has neither url nor pull"}},
		{"consumer lists handler", func(c *Config) {
			c.Destinations[0].URL, c.Destinations[0].Handler = "", true
			c.Tokens[1].Destinations = []string{"dev-alice", "billing"}
		}, []string{`tokens[1].destinations[1]: "billing" is not a pull destination`}},
		{"url relative", func(c *Config) { c.Destinations[0].URL = "/hooks" }, []string{"destinations[0].url: want an absolute http or https URL"}},
		{"url scheme", func(c *Config) { c.Destinations[0].URL = "ftp://h/x" }, []string{"destinations[0].url: want an absolute http or https URL"}},
		{"url no host", func(c *Config) { c.Destinations[0].URL = "http:///x" }, []string{"destinations[0].url: want an absolute http or https URL"}},
		{"secret missing", func(c *Config) { c.Destinations[0].Secret = "" }, []string{"destinations[0].secret: required (a whsec_… secret that signs what the destination receives)"}},
		{"secret without prefix", func(c *Config) { c.Destinations[0].Secret = "hunter2" }, []string{"destinations[0].secret: want whsec_ followed by base64"}},
		{"secret not base64", func(c *Config) { c.Destinations[0].Secret = "whsec_***" }, []string{"destinations[0].secret: want whsec_ followed by padded base64"}},
		{"secret prefix only", func(c *Config) { c.Destinations[0].Secret = "whsec_" }, []string{"destinations[0].secret: want whsec_ followed by padded base64"}},
		// A secret that validates must sign: the signer reads padded base64.
		{"secret unpadded base64", func(c *Config) { c.Destinations[0].Secret = "whsec_YWJjZA" }, []string{"destinations[0].secret: want whsec_ followed by padded base64"}},
		{"secret padded base64", func(c *Config) { c.Destinations[0].Secret = "whsec_YWJjZA==" }, nil},
		{"sources empty", func(c *Config) { c.Destinations[0].Sources = nil }, []string{"destinations[0].sources: empty (list the sources this destination receives)"}},
		{"source unknown", func(c *Config) { c.Destinations[1].Sources[1] = "gitlab" }, []string{`destinations[1].sources[1]: no source named "gitlab"`}},
		{"source twice", func(c *Config) { c.Destinations[1].Sources[1] = "stripe" }, []string{`destinations[1].sources[1]: "stripe" is listed twice`}},
		{"type bad glob", func(c *Config) { c.Destinations[0].Types = []string{"invoice.*", "charge.[", ""} }, []string{`destinations[0].types[1]: invalid glob "charge.["`, `destinations[0].types[2]: invalid glob ""`}},
		{"types globs", func(c *Config) {
			c.Destinations[0].Types = []string{"*", "customer.subscription.*", "charge.?ailed", "invoice.[ps]aid"}
		}, nil},
		{"timeout zero", func(c *Config) { c.Destinations[0].Timeout = 0 }, []string{"destinations[0].timeout: 0s is not more than 0"}},
		{"max_attempts zero", func(c *Config) { c.Destinations[0].MaxAttempts = 0 }, []string{"destinations[0].max_attempts: 0 is less than 1 (the first try counts)"}},
		{"backoff empty", func(c *Config) { c.Destinations[0].Backoff = nil }, []string{"destinations[0].backoff: empty (list at least one wait, e.g. [10s, 1m])"}},
		{"backoff empty, one attempt", func(c *Config) { c.Destinations[0].Backoff, c.Destinations[0].MaxAttempts = nil, 1 }, nil},
		{"backoff step zero", func(c *Config) { c.Destinations[0].Backoff = []Duration{Duration(time.Second), 0} }, []string{"destinations[0].backoff[1]: 0s is not more than 0"}},
		{"concurrency zero", func(c *Config) { c.Destinations[0].Concurrency = 0 }, []string{"destinations[0].concurrency: 0 is less than 1"}},
		{"rate zero events", func(c *Config) { c.Destinations[0].Rate = Rate{Events: 0, Per: time.Second} }, []string{"destinations[0].rate: must be more than 0 events per a positive duration"}},
		{"rate zero period", func(c *Config) { c.Destinations[0].Rate = Rate{Events: 5} }, []string{"destinations[0].rate: must be more than 0 events per a positive duration"}},
		{"rate none", func(c *Config) { c.Destinations[0].Rate = Rate{} }, nil},
		{"ordering_key empty segment", func(c *Config) { c.Destinations[0].OrderingKey = ".id" }, []string{`destinations[0].ordering_key: ".id" has an empty segment (want e.g. data.object.id)`}},

		// tokens
		{"token name missing", func(c *Config) { c.Tokens[0].Name = "" }, []string{"tokens[0].name: required"}},
		{"token name duplicate", func(c *Config) { c.Tokens[1].Name = "ops" }, []string{`tokens[1].name: "ops" is already used by tokens[0]`}},
		{"token secret duplicate", func(c *Config) { c.Tokens[1].Secret = "ops-token" }, []string{"tokens[1].secret: same secret as tokens[0]"}},
		{"token secret empty", func(c *Config) { c.Tokens[0].Secret, c.Tokens[1].Secret = "", "" }, nil},
		{"token role missing", func(c *Config) { c.Tokens[0].Role = "" }, []string{"tokens[0].role: required (want read, admin or consumer)"}},
		{"token role unknown", func(c *Config) { c.Tokens[0].Role = "root" }, []string{`tokens[0].role: unknown role "root" (want read, admin or consumer)`}},
		{"read token", func(c *Config) { c.Tokens[0].Role = RoleRead }, nil},
		{"metrics token", func(c *Config) { c.MetricsToken = "scrape-token" }, nil},
		{"metrics token is a token's secret", func(c *Config) { c.MetricsToken = "ops-token" }, []string{"metrics_token: same secret as tokens[0] (a scraper would hold that token's role)"}},
		{"metrics token with a space", func(c *Config) { c.MetricsToken = "scrape token" }, []string{"metrics_token: has a space or an unprintable character (it is sent as a bearer token)"}},
		{"admin token lists destinations", func(c *Config) { c.Tokens[0].Destinations = []string{"dev-alice"} }, []string{"tokens[0].destinations: only consumer tokens list destinations"}},
		{"read token lists destinations", func(c *Config) { c.Tokens[0].Role, c.Tokens[0].Destinations = RoleRead, []string{"dev-alice"} }, []string{"tokens[0].destinations: only consumer tokens list destinations"}},
		{"consumer lists none", func(c *Config) { c.Tokens[1].Destinations = nil }, []string{"tokens[1].destinations: empty (a consumer token lists the pull destinations it may claim)"}},
		{"consumer lists unknown", func(c *Config) { c.Tokens[1].Destinations = []string{"dev-bob"} }, []string{`tokens[1].destinations[0]: no destination named "dev-bob"`}},
		{"consumer lists push", func(c *Config) { c.Tokens[1].Destinations = []string{"dev-alice", "billing"} }, []string{`tokens[1].destinations[1]: "billing" is not a pull destination`}},

		// retention, alerts, ingest, log
		{"retention done zero", func(c *Config) { c.Retention.Done = 0 }, []string{"retention.done: 0s is not more than 0"}},
		{"retention dead negative", func(c *Config) { c.Retention.Dead = Duration(-24 * time.Hour) }, []string{"retention.dead: -1d is not more than 0"}},
		{"retention partitions", func(c *Config) { c.Database, c.Retention.Partitions = "postgres://db.internal/hookrelay", "daily" }, nil},
		{"retention partitions hourly", func(c *Config) { c.Database, c.Retention.Partitions = "postgres://db.internal/hookrelay", "hourly" }, nil},
		{"retention partitions unknown", func(c *Config) { c.Database, c.Retention.Partitions = "postgres://db.internal/hookrelay", "weekly" }, []string{
			`retention.partitions: "weekly" is not a period (want daily or hourly, or leave it out)`}},
		{"retention partitions on sqlite", func(c *Config) { c.Retention.Partitions = "daily" }, []string{
			"retention.partitions: partitions are PostgreSQL's: a SQLite event log is pruned row by row; remove the key, or use a postgres:// database"}},
		{"alerts url", func(c *Config) { c.Alerts.URL = "https://alerts.example.com/hook" }, nil},
		{"alerts url bad", func(c *Config) { c.Alerts.URL = "alerts.example.com" }, []string{"alerts.url: want an absolute http or https URL"}},
		{"signature alerts", func(c *Config) {
			c.Alerts.URL, c.Alerts.SignatureFailures.Rate = "https://alerts.example.com/hook", Rate{Events: 10, Per: time.Minute}
		}, nil},
		{"signature alerts nowhere", func(c *Config) { c.Alerts.SignatureFailures.Rate = Rate{Events: 10, Per: time.Minute} }, []string{
			"alerts.signature_failures: set alerts.url: the alerts have nowhere to go"}},
		{"signature alerts bad window", func(c *Config) {
			c.Alerts.URL = "https://alerts.example.com/hook"
			c.Alerts.SignatureFailures = SignatureFailures{Rate: Rate{Events: 10, Per: time.Minute}, Window: 0}
		}, []string{"alerts.signature_failures.window: 0s is not more than 0"}},
		{"fleet runner lease", func(c *Config) { c.Fleet.RunnerLease = Duration(2 * time.Second) }, nil},
		{"fleet runner lease too short", func(c *Config) { c.Fleet.RunnerLease = Duration(500 * time.Millisecond) }, []string{
			"fleet.runner_lease: 500ms is less than 1s"}},
		{"signature alerts zero rate", func(c *Config) {
			c.Alerts.URL = "https://alerts.example.com/hook"
			c.Alerts.SignatureFailures.Rate = Rate{Events: 0, Per: time.Minute}
		}, []string{"alerts.signature_failures.rate: want a rate above zero, like 10/m"}},
		{"slack alerts", func(c *Config) {
			c.Alerts.URL, c.Alerts.Format = "https://hooks.slack.com/services/T0/B0/x", AlertFormatSlack
		}, nil},
		{"alerts format unknown", func(c *Config) { c.Alerts.Format = "slak" }, []string{
			`alerts.format: unknown format "slak" (did you mean "slack"?) (want json or slack)`}},
		{"alerts format empty", func(c *Config) { c.Alerts.Format = "" }, []string{`alerts.format: unknown format "" (want json or slack)`}},
		{"alerts secret", func(c *Config) {
			c.Alerts.URL, c.Alerts.Secret = "https://alerts.example.com/hook", "whsec_YWxlcnQtc2lnbmluZy1rZXk="
		}, nil},
		{"alerts secret not whsec", func(c *Config) { c.Alerts.Secret = "hunter2" }, []string{"alerts.secret: want whsec_ followed by base64"}},
		{"alerts secret bad base64", func(c *Config) { c.Alerts.Secret = "whsec_!!" }, []string{"alerts.secret: want whsec_ followed by padded base64"}},
		{"console url", func(c *Config) { c.Alerts.ConsoleURL = "https://relay.example.com:8081/hookrelay" }, nil},
		{"console url bad", func(c *Config) { c.Alerts.ConsoleURL = "relay.example.com:8081" }, []string{
			"alerts.console_url: want an absolute http or https URL, like https://relay.example.com:8081"}},
		{"console url with a query", func(c *Config) { c.Alerts.ConsoleURL = "https://relay.example.com/?a=1" }, []string{
			"alerts.console_url: want the console's base URL, without a query or fragment"}},
		{"ingest zeros", func(c *Config) { c.Ingest = Ingest{} }, []string{
			"ingest.max_concurrency: 0 is less than 1",
			"ingest.rejections_keep: 0 is less than 1",
			"ingest.rejections_per_second: 0 is less than 1",
			"ingest.read_header_timeout: 0s is not more than 0",
			"ingest.read_timeout: 0s is not more than 0",
			"ingest.write_timeout: 0s is not more than 0",
			"ingest.idle_timeout: 0s is not more than 0",
			"ingest.max_inflight_bytes: 0 bytes is less than 1MiB",
		}},
		{"ingest negative upload rate", func(c *Config) { c.Ingest.MinUploadRate = -1 }, []string{
			"ingest.min_upload_rate: -1 bytes a second is negative (0 sets no floor)"}},
		{"log level", func(c *Config) { c.Log.Level = "verbose" }, []string{`log.level: unknown level "verbose" (want debug, info, warn or error)`}},
		{"log format", func(c *Config) { c.Log.Format = "xml" }, []string{`log.format: unknown format "xml" (want json or text)`}},
		{"log levels", func(c *Config) { c.Log = Log{Level: "warn", Format: "text"} }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := parse(t, validDoc, nil)
			tt.mutate(c)
			err := c.Validate()
			if tt.want == nil {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if got := problems(t, err); !slices.Equal(got, tt.want) {
				t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestValidateEmptySecretNamesVariable(t *testing.T) {
	t.Parallel()
	doc := `
sources: [{name: stripe, verify: stripe}]
destinations:
  - {name: billing, url: "http://h/", secret: "${BILLING_SIGNING_SECRET}", sources: [stripe]}
  - {name: both, url: "http://h/", secret: "${A}${B}", sources: [stripe]}
  - {name: literal, url: "http://h/", secret: "", sources: [stripe]}
  - {name: missing, url: "http://h/", sources: [stripe]}
`
	_, err := Parse([]byte(doc), testBase, env(nil))
	want := []string{
		"destinations[0].secret: empty (is BILLING_SIGNING_SECRET set?)",
		"destinations[1].secret: empty (are A, B set?)",
		"destinations[2].secret: required (a whsec_… secret that signs what the destination receives)",
		"destinations[3].secret: required (a whsec_… secret that signs what the destination receives)",
	}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every problem in the file is reported at once, decoding and validation
// alike, in one error with one line each.
func TestParseReportsEveryProblem(t *testing.T) {
	t.Parallel()
	doc := `
database: mysql://db
listen: ":8080"
admin_listen: ":8080"
tokens:
  - {name: ops, role: root, secret: x}
sources:
  - {name: stripe, verify: strpe, secrets: ["${STRIPE}"], max_body: 1TB}
  - {name: Stripe, verify: github, tolerance: 0s}
destinations:
  - name: billing
    url: http://h/
    pull: true
    secret: "${BILLING_SIGNING_SECRET}"
    sources: [stripe, gitlab]
    max_attempts: 0
    backoff: [1m, 0s]
    rate: 0/s
    colour: blue
retention: {done: 0d}
log: {level: loud}
`
	_, err := Parse([]byte(doc), testBase, env(nil))
	want := []string{
		`sources[0].max_body: invalid size "1TB" (want e.g. 2048, 512KiB, 1MiB, 10MB)`,
		`destinations[0].rate: invalid rate "0/s" (want N/s, N/m or N/h with N > 0, e.g. 100/s)`,
		`destinations[0].colour: unknown key`,
		`database: unknown scheme "mysql" (want sqlite:PATH or postgres://…)`,
		`admin_listen: same address as listen ":8080" (the admin API must never share the public listener)`,
		`sources[0].verify: unknown scheme "strpe" (did you mean "stripe"?) (want one of stripe, github, shopify, standard, slack, gitlab, hmac, none, twilio, paddle, zoom, meta, discord, sendgrid, mailgun, square, linear, intercom, msgraph)`,
		`sources[1].name: "Stripe" may hold only a-z, 0-9, _ and -`,
		`sources[1].tolerance: 0s is not more than 0`,
		`destinations[0].url: set either url or pull: true, not both`,
		`destinations[0].secret: empty (is BILLING_SIGNING_SECRET set?)`,
		`destinations[0].sources[1]: no source named "gitlab"`,
		`destinations[0].max_attempts: 0 is less than 1 (the first try counts)`,
		`destinations[0].backoff[1]: 0s is not more than 0`,
		`tokens[0].role: unknown role "root" (want read, admin or consumer)`,
		`retention.done: 0s is not more than 0`,
		`log.level: unknown level "loud" (want debug, info, warn or error)`,
	}
	got := problems(t, err)
	if !slices.Equal(got, want) {
		t.Errorf("problems =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err.Error() != strings.Join(want, "\n") {
		t.Errorf("Error() =\n%s\nwant one problem a line", err.Error())
	}
}

func TestParseWarnings(t *testing.T) {
	t.Parallel()
	doc := `
metrics_token: "${METRICS_TOKEN}"
tokens:
  - {name: ops, role: admin, secret: "${ADMIN_TOKEN}"}
  - {name: dashboard, role: read, secret: "${READ_TOKEN}"}
  - {name: literal, role: read, secret: ""}
sources:
  - {name: stripe, verify: stripe, secrets: ["${STRIPE_SECRET}", "${STRIPE_SECRET_OLD}"]}
  - {name: github, verify: github, secrets: ["", "${GITHUB_SECRET}"]}
  - {name: bare, verify: gitlab}
  - {name: local, verify: none}
  - {name: discord, verify: discord, public_keys: ["${DISCORD_KEY}"]}
  - {name: meta, verify: meta, secrets: [s], verify_token: "${META_VERIFY_TOKEN}"}
  - {name: sendgrid, verify: sendgrid, public_keys: ["${SENDGRID_KEY}"]}
`
	c := parse(t, doc, map[string]string{"READ_TOKEN": "read-token", "GITHUB_SECRET": "gh", "DISCORD_KEY": testDiscordKey})
	if len(c.Tokens) != 1 || c.Tokens[0].Name != "dashboard" {
		t.Errorf("Tokens = %+v, want only dashboard", c.Tokens)
	}
	want := []string{
		`tokens[0].secret: empty (is ADMIN_TOKEN set?); token "ops" is not active`,
		`tokens[2].secret: empty; token "literal" is not active`,
		`sources[0].secrets: source "stripe" has no secret (is STRIPE_SECRET set?); its requests are answered 503`,
		`sources[2].secrets: source "bare" has no secret; its requests are answered 503`,
		`sources[3].verify: source "local" verifies nothing: anyone who can reach the listener can post events to it; use it only locally`,
		`sources[5].verify_token: source "meta" has no verify_token (is META_VERIFY_TOKEN set?); Meta's subscription check is answered 503`,
		`sources[6].public_keys: source "sendgrid" has no public key (is SENDGRID_KEY set?); its requests are answered 503`,
		`metrics_token: empty (is METRICS_TOKEN set?); /metrics answers without a token`,
	}
	if !slices.Equal(c.Warnings, want) {
		t.Errorf("Warnings =\n%s\nwant\n%s", strings.Join(c.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(c.Sources[1].Secrets, []string{"", "gh"}) || !c.Sources[1].ActiveSecrets() || c.Sources[0].ActiveSecrets() {
		t.Errorf("github secrets = %q", c.Sources[1].Secrets)
	}
}

// A token with an empty secret is still checked before it is dropped.
func TestParseDroppedTokenStillValidated(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte(`tokens: [{name: alice, role: consumer, secret: "${ALICE_TOKEN}", destinations: [dev-alice]}]`), testBase, env(nil))
	want := []string{`tokens[0].destinations[0]: no destination named "dev-alice"`}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Errorf("problems = %q, want %q", got, want)
	}
}

// Public keys of the provider presets, in the forms their sources take.
const (
	testDiscordKey  = "ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c"
	testSendGridKey = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQGhHPTnlvFYPAZFceEu/1FwCM/QmGUhA=="
	testWhpk        = "whpk_ZlN4eg7dSSqi0moX9hQUk3orrOouK3QVQSlJa248c/g="
)

// alerts.secret is optional: one read from a variable or a file is used,
// and one written as a variable or a file that comes out empty is a
// warning while alerts are posted (they go out unsigned), as for
// metrics_token.
func TestAlertSecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "alert-secret"), []byte("whsec_YWxlcnQtc2lnbmluZy1rZXk=\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	const key = "whsec_YWxlcnQtc2lnbmluZy1rZXk="
	tests := []struct {
		name, alerts, secret string
		warnings             []string
	}{
		{"from a file", `{url: "https://h/", secret: "file:alert-secret"}`, key, nil},
		{"from a variable", `{url: "https://h/", secret: "${ALERT_SECRET}"}`, key, nil},
		{"variable unset", `{url: "https://h/", secret: "${UNSET}"}`, "", []string{"alerts.secret: empty (is UNSET set?); alerts go out unsigned"}},
		{"file empty", `{url: "https://h/", secret: "file:empty"}`, "", []string{
			"alerts.secret: empty (file " + filepath.Join(dir, "empty") + " is empty); alerts go out unsigned"}},
		{"no url", `{secret: "${UNSET}"}`, "", nil},
		{"none", `{url: "https://h/"}`, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Parse([]byte("alerts: "+tt.alerts+"\n"), dir, env(map[string]string{"ALERT_SECRET": key}))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if c.Alerts.Secret != tt.secret {
				t.Errorf("secret = %q, want %q", c.Alerts.Secret, tt.secret)
			}
			if !slices.Equal(c.Warnings, tt.warnings) {
				t.Errorf("warnings = %q, want %q", c.Warnings, tt.warnings)
			}
		})
	}
}

// TestPartitionsWarned checks the warning of a retention that keeps too
// many partitions: hourly ones over months, not daily ones.
func TestPartitionsWarned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		retention string
		warnings  []string
	}{
		{"{partitions: daily}", nil},
		{"{partitions: hourly, done: 2d, dead: 3d}", nil},
		{"{partitions: daily, done: 30d, dead: 90d}", nil},
		{"{partitions: hourly}", []string{"retention.partitions: hourly with the retention of 90d keeps about 2168 partitions of each table; " +
			"claims and lookups by delivery id probe each: prefer daily ones or a shorter retention"}},
		{"{partitions: daily, done: 365d, dead: 730d}", []string{"retention.partitions: daily with the retention of 730d keeps about 734 partitions of each table; " +
			"claims and lookups by delivery id probe each: prefer daily ones or a shorter retention"}},
	}
	for _, tt := range tests {
		c, err := Parse([]byte("database: postgres://db.internal/hookrelay\nretention: "+tt.retention+"\n"), t.TempDir(), env(nil))
		if err != nil {
			t.Fatalf("%s: %v", tt.retention, err)
		}
		if !slices.Equal(c.Warnings, tt.warnings) {
			t.Errorf("%s: warnings = %q, want %q", tt.retention, c.Warnings, tt.warnings)
		}
	}
}
