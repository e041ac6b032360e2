package hookrelay_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/appdb"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The tests drive hookrelay through its public API alone: a Relay made
// with New, handlers declared with Handle, webhooks posted to Receiver
// signed as Stripe signs them, and what happened read back from the
// application's own table and from the admin API.

const (
	stripeSecret = "whsec_dGVzdC1zZWNyZXQ"
	adminToken   = "tok_0123456789abcdef0123456789abcdef"
)

// bundle is what a test works with.
type bundle struct {
	relay  *hookrelay.Relay
	ingest string // base URL of the server that mounts Receiver
	admin  string // base URL of the server that mounts Admin
	app    appDB
	close  func() // stops the servers and closes the Relay; once
}

// eachDriver runs test on SQLite and on PostgreSQL, each on a fresh
// database.
func eachDriver(t *testing.T, test func(t *testing.T, drv testdb.Driver)) {
	for _, drv := range testdb.Drivers() {
		t.Run(drv.Name, func(t *testing.T) {
			t.Parallel()
			test(t, drv)
		})
	}
}

// setup creates the application's table "effects" on a fresh database,
// builds a Relay whose stripe source and admin token come from a config
// file and a struct, lets declare add its handler destinations, starts it
// and serves Receiver and Admin on test servers.
func setup(t *testing.T, drv testdb.Driver, declare func(r *hookrelay.Relay)) *bundle {
	t.Helper()
	return setupOn(t, drv.URL(t), declare)
}

// setupOn is setup on the database db, which may hold a run before.
func setupOn(t *testing.T, db string, declare func(r *hookrelay.Relay)) *bundle {
	t.Helper()
	return setupWith(t, db, nil, declare)
}

// setupWith is setupOn with edit, when not nil, changing the Config
// before New.
func setupWith(t *testing.T, db string, edit func(c *hookrelay.Config), declare func(r *hookrelay.Relay)) *bundle {
	t.Helper()
	b := &bundle{app: openApp(t, db)}
	b.app.exec(t, `CREATE TABLE IF NOT EXISTS effects (event_id text NOT NULL, note text NOT NULL DEFAULT '')`)

	file := filepath.Join(t.TempDir(), "hookrelay.yaml")
	yaml := fmt.Sprintf("tokens:\n  - {name: test, role: admin, secret: %q}\n", adminToken)
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := hookrelay.Config{
		Database: db,
		File:     file,
		Sources:  []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{stripeSecret}}},
	}
	if edit != nil {
		edit(&cfg)
	}
	r, err := hookrelay.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	declare(r)
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), startKey{}, "start"), 30*time.Second)
	defer cancel()
	if err := r.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/webhooks/", r.Receiver())
	ingest := httptest.NewServer(mux)
	admin := httptest.NewServer(r.Admin())
	var once sync.Once
	b.close = func() {
		once.Do(func() {
			ingest.Close()
			admin.Close()
			if err := r.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	t.Cleanup(b.close)
	b.relay, b.ingest, b.admin = r, ingest.URL, admin.URL
	return b
}

// startKey keys a value of the context setup starts a Relay with, which
// its handlers' contexts carry.
type startKey struct{}

// stripeEvent is the body of a Stripe event of type typ for an order,
// created at created.
func stripeEvent(id, typ, order string, created time.Time) []byte {
	return fmt.Appendf(nil, `{"id":%q,"type":%q,"created":%d,"data":{"object":{"id":"cs_%s","client_reference_id":%q}}}`,
		id, typ, created.Unix(), order, order)
}

// post signs body as Stripe does and posts it to the stripe source; it
// returns the status.
func (b *bundle) post(t *testing.T, body []byte) int {
	t.Helper()
	code, err := b.tryPost(body)
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	return code
}

// tryPost is post, for a relay that may be gone: it returns the error
// instead of failing the test.
func (b *bundle) tryPost(body []byte) (int, error) {
	ts := time.Now().Unix()
	mac := hmac.New(sha256.New, []byte(stripeSecret))
	fmt.Fprintf(mac, "%d.%s", ts, body)
	req, err := http.NewRequest(http.MethodPost, b.ingest+"/webhooks/stripe", strings.NewReader(string(body)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil))))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// mustPost posts body and fails the test unless it is stored (200).
func (b *bundle) mustPost(t *testing.T, body []byte) {
	t.Helper()
	if code := b.post(t, body); code != http.StatusOK {
		t.Fatalf("post %s: status %d, want 200", body, code)
	}
}

// adminDelivery is a delivery as the admin API lists it.
type adminDelivery struct {
	Destination string `json:"destination"`
	Status      string `json:"status"`
	Attempts    int    `json:"attempts"`
	ReplayCount int    `json:"replay_count"`
	LastError   string `json:"last_error"`
	AttemptLog  []struct {
		Error string `json:"error"`
	} `json:"attempt_log"`
}

// adminCall calls the admin API with the admin token and decodes the
// answer into out.
func (b *bundle) adminCall(t *testing.T, method, path, body string, out any) {
	t.Helper()
	if err := b.tryAdminCall(method, path, body, out); err != nil {
		t.Fatal(err)
	}
}

// tryAdminCall is adminCall, for a relay that may be gone: it returns the
// error instead of failing the test.
func (b *bundle) tryAdminCall(method, path, body string, out any) error {
	req, err := http.NewRequest(method, b.admin+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: status %d", method, path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode: %w", method, path, err)
	}
	return nil
}

// delivery returns the delivery of the event whose provider id is
// providerID to destination, as the admin API shows it.
func (b *bundle) delivery(t *testing.T, providerID, destination string) adminDelivery {
	t.Helper()
	d, err := b.tryDelivery(providerID, destination)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// eventID returns hookrelay's id of the event whose provider id is
// providerID.
func (b *bundle) eventID(t *testing.T, providerID string) string {
	t.Helper()
	var list struct {
		Events []struct {
			ID              string `json:"id"`
			ProviderEventID string `json:"provider_event_id"`
		} `json:"events"`
	}
	b.adminCall(t, http.MethodGet, "/api/v1/events?source=stripe&limit=500", "", &list)
	for _, e := range list.Events {
		if e.ProviderEventID == providerID {
			return e.ID
		}
	}
	t.Fatalf("no event %s", providerID)
	return ""
}

// tryDelivery is delivery, for a relay that may be gone: it returns the
// error instead of failing the test.
func (b *bundle) tryDelivery(providerID, destination string) (adminDelivery, error) {
	var list struct {
		Events []struct {
			ID              string `json:"id"`
			ProviderEventID string `json:"provider_event_id"`
		} `json:"events"`
	}
	if err := b.tryAdminCall(http.MethodGet, "/api/v1/events?source=stripe&limit=500", "", &list); err != nil {
		return adminDelivery{}, err
	}
	for _, e := range list.Events {
		if e.ProviderEventID != providerID {
			continue
		}
		var ev struct {
			Deliveries []adminDelivery `json:"deliveries"`
		}
		if err := b.tryAdminCall(http.MethodGet, "/api/v1/events/"+e.ID, "", &ev); err != nil {
			return adminDelivery{}, err
		}
		for _, d := range ev.Deliveries {
			if d.Destination == destination {
				return d, nil
			}
		}
	}
	return adminDelivery{}, fmt.Errorf("no delivery of %s to %s", providerID, destination)
}

// waitStatus waits until the delivery of providerID to destination has
// status want, and returns it.
func (b *bundle) waitStatus(t *testing.T, providerID, destination, want string) adminDelivery {
	t.Helper()
	var d adminDelivery
	testkit.Eventually(t, 15*time.Second, fmt.Sprintf("the delivery of %s to %s to be %s", providerID, destination, want), func() error {
		var err error
		if d, err = b.tryDelivery(providerID, destination); err != nil {
			return err // not created yet, as a backfill's
		}
		return testkit.Check(d.Status == want, "it is %+v", d)
	})
	return d
}

// appDB is the application's own connection to the database, outside
// hookrelay.
type appDB struct{ appdb.DB }

func openApp(t *testing.T, database string) appDB { return appDB{appdb.Open(t, database)} }

func (a appDB) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	a.Exec(t, query, args...)
}

// strings returns the one text column query selects, row by row.
func (a appDB) strings(t *testing.T, query string, args ...any) []string {
	t.Helper()
	return a.Strings(t, query, args...)
}

// insertEffect records ev in the application's table, inside tx, with
// note.
func insertEffect(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event, note string) error {
	return appdb.ExecTx(ctx, tx, `INSERT INTO effects (event_id, note) VALUES ($1, $2)`, ev.ProviderEventID, note)
}

// httptestRecorder serves one request with an empty body to h.
func httptestRecorder(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}
