package adminapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// providerFixture is one request of the signature package's
// provider-fixtures.json, made or checked by the provider's own SDK.
type providerFixture struct {
	Name          string            `json:"name"`
	Scheme        string            `json:"scheme"`
	SDK           string            `json:"sdk"`
	Secret        string            `json:"secret"`
	PublicKey     string            `json:"public_key"`
	URL           string            `json:"url"`
	Headers       map[string]string `json:"headers"`
	Body          string            `json:"body"`
	Now           int64             `json:"now"`
	ExpectedValid bool              `json:"expected_valid"`
	HMAC          config.HMAC       `json:"hmac"`
}

// UnmarshalJSON reads the fixture's hmac options, whose keys are the
// config file's.
func (f *providerFixture) UnmarshalJSON(b []byte) error {
	type plain providerFixture
	var v struct {
		plain
		HMAC struct {
			Header, Algorithm, Encoding, Prefix string
			TimestampHeader                     string `json:"timestamp_header"`
		} `json:"hmac"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = providerFixture(v.plain)
	f.HMAC = config.HMAC{Header: v.HMAC.Header, Algorithm: v.HMAC.Algorithm, Encoding: v.HMAC.Encoding,
		Prefix: v.HMAC.Prefix, TimestampHeader: v.HMAC.TimestampHeader}
	return nil
}

func loadProviderFixtures(t *testing.T) []providerFixture {
	t.Helper()
	b, err := os.ReadFile("../signature/testdata/provider-fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	var fs []providerFixture
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

// sourceYAML returns the source a user writes for the fixture's provider,
// named after the fixture, as a line of the config file's sources list:
// no tolerance, so the preset's default applies.
func (f providerFixture) sourceYAML(t *testing.T) string {
	t.Helper()
	s := map[string]any{"name": f.Name, "verify": f.Scheme}
	switch {
	case f.PublicKey != "":
		s["public_keys"] = []string{f.PublicKey}
	case f.Secret != "":
		s["secrets"] = []string{f.Secret}
	}
	if u, _, _ := strings.Cut(f.URL, "?"); u != "" {
		s["public_url"] = u
	}
	if f.Scheme == "meta" {
		s["verify_token"] = "meta-fixture-verify-token"
	}
	if f.Scheme == "hmac" {
		s["hmac"] = map[string]string{"header": f.HMAC.Header, "algorithm": f.HMAC.Algorithm, "encoding": f.HMAC.Encoding,
			"prefix": f.HMAC.Prefix, "timestamp_header": f.HMAC.TimestampHeader}
	}
	// JSON is YAML: one flow mapping per source.
	line, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return "  - " + string(line) + "\n"
}

// post sends the fixture to the public ingest listener as its provider
// did, and returns the status and answer.
func (f providerFixture) post(t *testing.T, base string) (int, string) {
	t.Helper()
	u := base + "/webhooks/" + f.Name
	if _, q, ok := strings.Cut(f.URL, "?"); ok {
		u += "?" + q
	}
	req, err := http.NewRequest(http.MethodPost, u, bytes.NewReader([]byte(f.Body)))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range f.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(text)
}

// handshakes are the fixtures a provider sends to check the endpoint: they
// are answered, not stored.
var handshakes = map[string]string{"discord-sdk-ping": `{"type":1}`}

// unverifiable are the schemes whose stored events cannot be re-checked,
// with what the verify endpoint says instead.
var unverifiable = map[string]string{"gitlab": "never stores", "none": "verifies nothing"}

// presetTolerance is the default tolerance, in seconds, of the presets
// whose provider's SDK allows other than 5 minutes.
var presetTolerance = map[string]float64{"linear": 60, "paddle": 5}

// TestProviderFixturesEndToEnd ingests every provider preset's fixture
// through the public receiver, on both drivers: each genuine one is
// answered 2xx and stored, then re-verified through the admin API's verify
// endpoint, which must report a match in slot 0 within the preset's
// default tolerance; each the provider's SDK refused is 401 and not
// stored; a genuine one with a signed time, received a second past the
// preset's default tolerance, is 400.
func TestProviderFixturesEndToEnd(t *testing.T) {
	fixtures := loadProviderFixtures(t)
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		var sources strings.Builder
		for _, f := range fixtures {
			sources.WriteString(f.sourceYAML(t))
		}
		doc := strings.Replace(baseConfig, "sources:\n", "sources:\n"+sources.String(), 1)
		cfg, err := config.Parse([]byte(doc), t.TempDir(), func(k string) string { return testEnv[k] })
		if err != nil {
			t.Fatalf("config of the fixtures' sources: %v", err)
		}
		b := setup(t, driver, cfg)
		schemes := map[string]bool{}
		for _, f := range fixtures {
			t.Run(f.Name, func(t *testing.T) {
				tolerance, ok := presetTolerance[f.Scheme]
				if !ok {
					tolerance = 300
				}
				at := time.Time{}
				defer b.receiveAt(time.Time{})
				if f.Now != 0 {
					// Received a second past the preset's default
					// tolerance, a signed time is stale: 400.
					at = time.Unix(f.Now, 0)
					b.receiveAt(at.Add(time.Duration(tolerance+1) * time.Second))
					if status, text := f.post(t, b.ingest.URL); f.ExpectedValid &&
						(status != http.StatusBadRequest || text != `{"error":"timestamp_out_of_tolerance"}`) {
						t.Errorf("received %vs after its signed time: %d %s; want 400 timestamp_out_of_tolerance", tolerance+1, status, text)
					}
				}
				b.receiveAt(at)
				status, text := f.post(t, b.ingest.URL)
				var list adminwire.EventList
				wantStatus(t, "list "+f.Name, b.call(t, readToken, "GET", "/api/v1/events?source="+url.QueryEscape(f.Name), nil, &list), 200)

				if !f.ExpectedValid {
					if status != http.StatusUnauthorized || len(list.Events) != 0 {
						t.Errorf("refused by %s: %d %s, %d stored; want 401, none stored", f.SDK, status, text, len(list.Events))
					}
					return
				}
				if status < 200 || status > 299 {
					t.Fatalf("accepted by %s: %d %s; want 2xx", f.SDK, status, text)
				}
				schemes[f.Scheme] = true
				if answer, ok := handshakes[f.Name]; ok {
					if text != answer || len(list.Events) != 0 {
						t.Errorf("handshake: %s, %d stored; want %s, none stored", text, len(list.Events), answer)
					}
					return
				}
				if len(list.Events) != 1 {
					t.Fatalf("%d events stored; want 1", len(list.Events))
				}
				var v adminwire.Verification
				wantStatus(t, "verify "+f.Name, b.call(t, readToken, "POST", "/api/v1/events/"+list.Events[0].ID+"/verify", nil, &v), 200)
				if want, ok := unverifiable[f.Scheme]; ok {
					if v.Valid || !strings.Contains(v.Reason, want) {
						t.Errorf("verify = %+v; want not valid, a reason saying it %s", v, want)
					}
					return
				}
				if !v.Valid || v.Slot == nil || *v.Slot != 0 || v.Scheme != f.Scheme || !v.WithinTolerance {
					t.Errorf("verify = %+v; want a match in slot 0 within the tolerance", v)
				}
				if v.ToleranceSeconds != tolerance {
					t.Errorf("verify reports tolerance %vs; want the preset's default %vs", v.ToleranceSeconds, tolerance)
				}
			})
		}
		if len(schemes) != 19 {
			t.Errorf("genuine fixtures of %d presets ingested; want all 19", len(schemes))
		}
	})
}
