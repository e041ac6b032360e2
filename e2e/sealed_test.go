package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// sealedMarker is in the body, a header and the sink's first answer (a
// 503, kept with its failed attempt) of the event
// TestSealedReadPaths sends: with keys it must be in no file or table.
const sealedMarker = "e2e-marker-cus-9f1d-4242"

const (
	sealedKey      = "c2VhbGVkLWtleS1vbmUtZm9yLXRoZS1lMmUtdGVzdCE=" // 32 bytes
	sealedWrongKey = "d3Jvbmcta2V5LXVuZGVyLXRoZS1zYW1lLWlkLWsxISE=" // 32 bytes, same id
	sealedConsumer = "e2e-sealed-consumer-0123456789"
)

// sealedConfig pushes to sink and has a pull destination for listen, with
// payloads sealed under key k1 from ${E2E_PAYLOAD_KEY}.
func sealedConfig(sink string) string {
	return `tokens:
  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
  - {name: dev, role: consumer, secret: "` + sealedConsumer + `", destinations: [dev]}
` + stripeSource + `destinations:
  - name: sink
    url: "` + sink + `/hooks"
    secret: "whsec_ZTJlLXNpbmstc2lnbmluZw=="
    sources: [stripe]
    backoff: [1s]
  - name: dev
    pull: true
    secret: "whsec_ZTJlLWRldi1zaWduaW5n"
    sources: [stripe]
encryption:
  keys:
    - {id: k1, key: "${E2E_PAYLOAD_KEY}"}
`
}

// TestSealedReadPaths runs a relay whose config names a key: every read
// path gives the bytes that arrived (push delivery, a pull claim through
// listen, events raw, verify, the attempt's snippet), the database holds
// none of them, and the same database under a wrong key answers an error
// instead of bytes.
func TestSealedReadPaths(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			// The sink turns the first push away with the marker in its
			// answer, which the failed attempt keeps; the retry succeeds.
			var pushes atomic.Int64
			sink := newListenServer(t, func(w http.ResponseWriter, _ *http.Request) {
				if pushes.Add(1) == 1 {
					w.WriteHeader(http.StatusServiceUnavailable)
					fmt.Fprint(w, "busy "+sealedMarker)
					return
				}
				fmt.Fprint(w, "got it")
			})
			local := newListenServer(t, nil)
			db := driver.URL(t)
			env := append([]string{"E2E_PAYLOAD_KEY=" + sealedKey}, adminEnv...)
			p := startRelay(t, db, sealedConfig(sink.URL), env)
			read := cliEnv(p, e2eReadToken)

			body := []byte("{\n  \"id\": \"evt_sealed\",\n  \"type\": \"invoice.paid\",\n  \"customer\": \"" + sealedMarker + "\",\n  \"bytes\": \"\u00e9\\u0000\"\n}\n")
			postSignedWith(t, p, body, http.Header{"X-Customer": {sealedMarker}})

			testkit.Eventually(t, 20*time.Second, "the push delivery", func() error {
				return testkit.Check(len(sink.received("evt_sealed")) > 0, "nothing pushed")
			})
			if got := sink.received("evt_sealed")[0]; !bytes.Equal(got.body, body) {
				t.Errorf("pushed body = %q, want %q", got.body, body)
			}
			l := startListen(t, p, sealedConsumer, "dev", local.URL)
			testkit.Eventually(t, 20*time.Second, "the pull claim through listen", func() error {
				return testkit.Check(len(local.received("evt_sealed")) > 0, "nothing forwarded")
			})
			l.stop(t)
			if got := local.received("evt_sealed")[0]; !bytes.Equal(got.body, body) {
				t.Errorf("claimed body = %q, want %q", got.body, body)
			}

			id := strings.TrimSpace(wantRun(t, read, 0, "events", "list", "--ids").stdout)
			if r := wantRun(t, read, 0, "events", "raw", id); r.stdout != string(body) {
				t.Errorf("events raw = %q, want %q", r.stdout, body)
			}
			contains(t, "verify", wantRun(t, read, 0, "verify", id).stdout, "valid: the signature matches secret slot 0")
			testkit.Eventually(t, 10*time.Second, "the push attempt recorded", func() error {
				out := wantRun(t, read, 0, "events", "show", id).stdout
				return testkit.Check(strings.Contains(out, "busy "+sealedMarker), "events show:\n%s", out)
			})
			contains(t, "events show", wantRun(t, read, 0, "events", "show", id).stdout, "X-Customer: "+sealedMarker)
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d", code)
			}

			if n := markerInDatabase(t, db); n > 0 {
				t.Errorf("the database holds the marker %d times", n)
			}

			// The same database under a key of the same id but other bytes.
			env = append([]string{"E2E_PAYLOAD_KEY=" + sealedWrongKey}, adminEnv...)
			p = startRelay(t, db, sealedConfig(sink.URL), env)
			r := run(t, cliEnv(p, e2eReadToken), "events", "raw", id)
			if r.code == 0 || strings.Contains(r.stdout, "evt_sealed") || r.stdout != "" {
				t.Errorf("events raw under a wrong key: exit %d, stdout %q", r.code, r.stdout)
			}
		})
	}
}

// markerInDatabase counts where the marker is in the database as it is
// stored: the SQLite file, WAL and shm, or every row of PostgreSQL's
// events and attempts.
func markerInDatabase(t *testing.T, db string) int {
	t.Helper()
	if path, ok := strings.CutPrefix(db, "sqlite:"); ok {
		n := 0
		for _, name := range []string{path, path + "-wal", path + "-shm"} {
			b, err := os.ReadFile(name)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			n += bytes.Count(b, []byte(sealedMarker))
		}
		return n
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, qualify(t, db, `SELECT
  (SELECT count(*) FROM hookrelay.events e WHERE position(convert_to($1, 'UTF8') IN convert_to(e::text, 'UTF8')) > 0
     OR position(convert_to($1, 'UTF8') IN e.body) > 0)
+ (SELECT count(*) FROM hookrelay.attempts a WHERE position(convert_to($1, 'UTF8') IN convert_to(a::text, 'UTF8')) > 0
     OR position(convert_to($1, 'UTF8') IN a.response_snippet) > 0)`), sealedMarker).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
