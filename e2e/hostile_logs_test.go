package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// What the log test looks for in every line the relay writes.
const (
	payloadMarker = "PAYLOAD-MARKER-7f3a"
	headerMarker  = "HEADER-MARKER-c91e"
	answerMarker  = "ANSWER-MARKER-2b6d" // in the destination's error answer
)

// logSecrets are the secrets of the log test's relay, by the variable
// that carries each into its config.
var logSecrets = map[string]string{
	"LOG_GITLAB":      "gl-token-SECRET-4b8d1e",
	"LOG_PUSH_SECRET": "whsec_" + base64.StdEncoding.EncodeToString([]byte("push-dest-SECRET-c3f0")),
	"LOG_PULL_SECRET": "whsec_" + base64.StdEncoding.EncodeToString([]byte("pull-dest-SECRET-a71b")),
	"LOG_ADMIN":       "admin-TOKEN-SECRET-5e2c",
	"LOG_READ":        "read-TOKEN-SECRET-8f1a",
	"LOG_CONSUMER":    "consumer-TOKEN-SECRET-0d3b",
	"LOG_ALERT":       "whsec_" + base64.StdEncoding.EncodeToString([]byte("alert-SECRET-6e94")),
}

// logConfig pushes to url, and to doomed, whose one attempt fails and goes
// dead; dead letters and signature failures are alerts posted, signed and
// linked to the console, to alerts.
func logConfig(url, doomed, alerts string) string {
	return fmt.Sprintf(`log: {level: debug, format: json}
alerts:
  url: %q
  secret: "${LOG_ALERT}"
  console_url: https://relay.example.com:8081
  signature_failures: {rate: 1/m, window: 1m}
tokens:
  - {name: ops, role: admin, secret: "${LOG_ADMIN}"}
  - {name: viewer, role: read, secret: "${LOG_READ}"}
  - {name: alice, role: consumer, secret: "${LOG_CONSUMER}", destinations: [dev]}
sources:
  - {name: stripe, verify: stripe, secrets: ["${E2E_STRIPE_SECRET}"]}
  - {name: gitlab, verify: gitlab, secrets: ["${LOG_GITLAB}"]}
destinations:
  - name: sink
    url: %q
    secret: "${LOG_PUSH_SECRET}"
    sources: [stripe, gitlab]
    forward_headers: true
    backoff: [200ms]
  - name: dev
    pull: true
    secret: "${LOG_PULL_SECRET}"
    sources: [stripe]
  - name: doomed
    url: %q
    secret: "${LOG_PUSH_SECRET}"
    sources: [stripe]
    max_attempts: 1
`, alerts, url, doomed)
}

// TestHostileLogsKeepSecrets runs a relay at debug level through a whole
// session: events stored, duplicate, forged, malformed, stale, too large
// and unknown; a push delivery whose first attempt fails with an answer
// that echoes the payload; the admin API listing, showing, reading raw
// bytes, verifying, replaying, claiming and acking with tokens, and
// refusing wrong ones; a purge by a value of the payload, refused, dry run
// and real; a dead letter and a burst of signature failures, each an
// alert. No line it writes may hold a secret, a token, a lease, the
// payload or its provider headers, and every line is JSON; nor may an
// alert it posts, a label of its metrics, or the answers of the purge and
// of the audit log.
func TestHostileLogsKeepSecrets(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, func(n int) (int, string) {
				if n == 1 {
					return http.StatusInternalServerError, "rejected: " + answerMarker + " " + payloadMarker
				}
				return http.StatusOK, ""
			})
			doomed := newRecorder(t, func(int) (int, string) {
				return http.StatusInternalServerError, "rejected: " + answerMarker + " " + payloadMarker
			})
			alerts := newRecorder(t, nil)
			env := append([]string(nil), stripeEnv...)
			for k, v := range logSecrets {
				env = append(env, k+"="+v)
			}
			p := startRelay(t, driver.URL(t), logConfig(rec.srv.URL+"/hook", doomed.srv.URL+"/hook", alerts.srv.URL+"/alerts"), env)
			s := &logSession{t: t, p: p}

			body := stripeEvent("evt_logs_1", fmt.Sprintf(`"data":{"object":{"note":%q}}`, payloadMarker))
			note := http.Header{"X-Note": {headerMarker}}
			s.post("stored", hostileStripe(t, p, body, note), 200)
			s.post("duplicate", hostileStripe(t, p, body, note), 200)
			s.post("forged", s.stripeSigned(body, "whsec_d3Jvbmctc2VjcmV0", time.Now()), 401)
			s.post("stale", s.stripeSigned(body, stripeSecret, time.Now().Add(-10*time.Minute)), 400)
			missing := hostileStripe(t, p, body, note)
			missing.Header.Del("Stripe-Signature")
			s.post("missing signature", missing, 400)
			malformed := hostileStripe(t, p, body, note)
			malformed.Header.Set("Stripe-Signature", "t=x,"+payloadMarker)
			s.post("malformed signature", malformed, 400)
			big := bytes.Repeat([]byte(payloadMarker), (1<<20)/len(payloadMarker)+1)
			s.post("too large", hostileStripe(t, p, big, note), 413)
			gl := s.gitlab(logSecrets["LOG_GITLAB"])
			s.post("gitlab stored", gl, 200)
			s.post("gitlab wrong token", s.gitlab("gl-token-WRONG-"+payloadMarker), 401)
			unknown := hostileStripe(t, p, body, note)
			unknown.URL.Path = "/webhooks/" + payloadMarker
			s.post("unknown source", unknown, 404)

			// Two events, the first attempt failing: three pushes. The
			// replay below re-arms only a delivery whose outcome is
			// recorded (one still processing is in flight, and left alone),
			// which may come a moment after the destination's answer.
			rec.waitReceived(t, 3, 20*time.Second)
			waitSettled(t, p, logSecrets["LOG_ADMIN"], "sink")

			admin, read, consumer := logSecrets["LOG_ADMIN"], logSecrets["LOG_READ"], logSecrets["LOG_CONSUMER"]
			var list adminwire.EventList
			s.adminJSON(admin, "GET", "/api/v1/events?source=stripe", "", 200, &list)
			if len(list.Events) != 1 {
				t.Fatalf("listed %d stripe events, want 1", len(list.Events))
			}
			id := list.Events[0].ID
			s.admin(read, "GET", "/api/v1/events/"+id, "", 200)
			if raw := s.admin(read, "GET", "/api/v1/events/"+id+"/raw", "", 200); !bytes.Equal(raw, body) {
				t.Fatalf("raw = %q, want %q", raw, body)
			}
			s.admin(read, "POST", "/api/v1/events/"+id+"/verify", "", 200)
			s.admin(admin, "POST", "/api/v1/replay", fmt.Sprintf(`{"ids":[%q],"destination":"sink"}`, id), 200)
			s.admin(read, "GET", "/api/v1/stats", "", 200)
			s.admin(read, "POST", "/api/v1/replay", `{"ids":["`+payloadMarker+`"]}`, 403)
			s.admin("wrong-"+admin, "GET", "/api/v1/stats", "", 401)
			var claimed adminwire.Claimed
			s.adminJSON(consumer, "POST", "/api/v1/destinations/dev/claim?wait=5s", "", 200, &claimed)
			if len(claimed.Deliveries) != 1 {
				t.Fatalf("claimed %d deliveries, want 1", len(claimed.Deliveries))
			}
			lease := claimed.Deliveries[0].LeaseToken
			s.admin(consumer, "POST", fmt.Sprintf("/api/v1/deliveries/%d/ack", claimed.Deliveries[0].ID),
				fmt.Sprintf(`{"outcome":"done","lease_token":%q}`, lease), 200)
			rec.waitReceived(t, 4, 20*time.Second) // the replay

			// Purge the event by a value of its payload: refused to a read
			// token, then counted, then done; its bytes are then gone.
			purge := fmt.Sprintf(`{"source":"stripe","path":"data.object.note","value":%q,"reason":"log scan"`, payloadMarker)
			answers := [][]byte{
				s.admin(read, "POST", "/api/v1/purge", purge+`}`, 403),
				s.admin(admin, "POST", "/api/v1/purge", fmt.Sprintf(`{"path":"data..note","value":%q,"reason":"log scan"}`, payloadMarker), 400),
				s.admin(admin, "POST", "/api/v1/purge", purge+`,"dry_run":true}`, 200),
				s.admin(admin, "POST", "/api/v1/purge", purge+`}`, 200),
				s.admin(read, "GET", "/api/v1/events/"+id+"/raw", "", 410),
				s.admin(read, "GET", "/api/v1/events/"+id, "", 200),
				s.admin(read, "GET", "/api/v1/audit", "", 200),
			}
			var purged adminwire.PurgeResult
			if err := json.Unmarshal(answers[3], &purged); err != nil || purged.Purged != 1 {
				t.Fatalf("purge answered %s, want 1 purged", answers[3])
			}
			// A dead letter (doomed's one attempt) and the signature
			// failures posted above are alerts.
			doomed.waitReceived(t, 1, 20*time.Second)
			sent := alerts.waitReceived(t, 2, 30*time.Second)
			metrics := scrapeMetrics(t, p)

			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d after SIGTERM", code)
			}
			logs := p.logs.String()
			forbidden := map[string]string{
				"the payload marker":               payloadMarker,
				"the provider header marker":       headerMarker,
				"the destination's answer":         answerMarker,
				"the stripe source secret":         stripeSecret,
				"the lease token":                  lease,
				"the body as a claim hands it out": base64.StdEncoding.EncodeToString(body),
			}
			for name, v := range logSecrets {
				forbidden[name] = v
				if key, ok := strings.CutPrefix(v, "whsec_"); ok {
					raw, _ := base64.StdEncoding.DecodeString(key)
					forbidden[name+" decoded"] = string(raw)
				}
			}
			outputs := map[string]string{"the logs": logs, "the metrics": metrics}
			for i, a := range answers {
				outputs[fmt.Sprintf("admin answer %d of the purge", i)] = string(a)
			}
			for i, a := range alerts.received() {
				outputs[fmt.Sprintf("alert %d", i)] = string(a.body)
			}
			leaks := 0
			for where, out := range outputs {
				for what, v := range forbidden {
					if i := strings.Index(out, v); i >= 0 {
						leaks++
						t.Errorf("%s hold %s: %q", where, what, out[max(0, i-200):min(len(out), i+len(v)+50)])
					}
				}
			}
			lines, notJSON := 0, 0
			for line := range strings.SplitSeq(strings.TrimSpace(logs), "\n") {
				lines++
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil || m["msg"] == nil {
					notJSON++
					t.Errorf("log line is not a JSON record: %q", line)
				}
			}
			t.Logf("RELIABILITY logs driver=%s requests=%d log_lines=%d alerts=%d metrics_bytes=%d secrets_checked=%d leaks=%d non_json_lines=%d",
				driver.Name, s.requests, lines, len(sent), len(metrics), len(forbidden), leaks, notJSON)
		})
	}
}

// logSession drives the log test's relay and counts its requests.
type logSession struct {
	t        *testing.T
	p        *relayProc
	requests int
}

func (s *logSession) post(what string, req *http.Request, want int) {
	s.t.Helper()
	s.requests++
	status, _, answer, err := hostileDo(http.DefaultClient, req)
	if err != nil || status != want {
		s.t.Fatalf("%s: %d %s %v, want %d", what, status, answer, err, want)
	}
}

// stripeSigned is a Stripe request signed with secret at the time at.
func (s *logSession) stripeSigned(body []byte, secret string, at time.Time) *http.Request {
	s.t.Helper()
	req := hostileStripe(s.t, s.p, body, nil)
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{secret}}, 0, signature.Message{Body: body, Now: at})
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Stripe-Signature", h.Get("Stripe-Signature"))
	return req
}

// gitlab is a GitLab push event carrying token.
func (s *logSession) gitlab(token string) *http.Request {
	body := fmt.Sprintf(`{"object_kind":"push","note":%q}`, payloadMarker)
	req, err := http.NewRequest(http.MethodPost, "http://"+s.p.public+"/webhooks/gitlab", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("X-Gitlab-Token", token)
	req.Header.Set("X-Gitlab-Event", "Push Hook")
	req.Header.Set("Idempotency-Key", "gl-logs-1")
	req.Header.Set("X-Note", headerMarker)
	return req
}

func (s *logSession) admin(token, method, path, body string, want int) []byte {
	s.t.Helper()
	s.requests++
	status, answer := hostileAdmin(s.t, s.p, token, method, path, body)
	if status != want {
		s.t.Fatalf("%s %s: %d %s, want %d", method, path, status, answer, want)
	}
	return answer
}

func (s *logSession) adminJSON(token, method, path, body string, want int, v any) {
	s.t.Helper()
	if err := json.Unmarshal(s.admin(token, method, path, body, want), v); err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
}
