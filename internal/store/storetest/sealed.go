package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Marker is a byte string the sealed tests put in a body, a header value
// and a response snippet, so that a driver's test can look for it in the
// raw database: where keys are set, it is found nowhere.
const Marker = "zq-marker-7f3a-card-4242"

// TestKeys returns a ring of keys derived from their ids, the first of
// which seals: the same id always gives the same key.
func TestKeys(tb testing.TB, ids ...string) *payloadcrypt.Ring {
	tb.Helper()
	keys := make([]payloadcrypt.Key, len(ids))
	for i, id := range ids {
		sum := sha256.Sum256([]byte("test key " + id))
		keys[i] = payloadcrypt.Key{ID: id, Secret: sum[:]}
	}
	r, err := payloadcrypt.NewRing(keys)
	if err != nil {
		tb.Fatalf("NewRing: %v", err)
	}
	return r
}

// ReopenFunc makes a fresh, empty, migrated database for one test and
// returns a function that opens a store on it with the given keys (nil:
// none). Every store it opens is closed when the test ends.
type ReopenFunc func(t *testing.T) func(keys *payloadcrypt.Ring) store.DB

// sealedTests are the checks of payload sealing, each on a database of its
// own.
var sealedTests = []struct {
	name string
	run  func(t *testing.T, open func(*payloadcrypt.Ring) store.DB)
}{
	{"EveryReadOpensExactBytes", testSealedReads},
	{"MissingKeyIsAnError", testSealedMissingKey},
	{"WrongKeyIsAnError", testSealedWrongKey},
	{"ResealMovesEveryRow", testResealMovesEveryRow},
	{"ResealResumes", testResealResumes},
	{"ResealUnderLoad", testResealUnderLoad},
	{"ResealNeedsKeys", testResealNeedsKeys},
	{"ResealUnknownKeyFails", testResealUnknownKeyFails},
	{"TextSearchPassesSealedRows", testTextSearchPassesSealedRows},
}

// RunSealed runs the checks of payload sealing: what a store with keys
// writes reads back exactly through every read, beside rows written plain
// or under an older key, and a row whose key is missing or wrong is an
// error, never other bytes. Run (the whole suite) on a store with keys
// checks the rest of the behaviour is unchanged.
func RunSealed(t *testing.T, reopen ReopenFunc) {
	for _, tc := range sealedTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, reopen(t))
		})
	}
}

// markedEvent returns an event whose body, one header and raw query hold
// Marker.
func markedEvent(providerID string, received time.Time) store.Event {
	e := dueEvent(providerID, received)
	e.Body = []byte(`{"id":"` + providerID + `","card":"` + Marker + `","bin":"` + "\x00\xff" + `"}`)
	e.Headers = map[string][]string{"X-Customer": {Marker}, "User-Agent": {"Stripe/1.0"}}
	e.RawQuery = "card=" + Marker + "&to=%2B15551234567"
	return e
}

// IngestMarked stores, through s, an event whose body, a header and raw
// query hold Marker, delivers it once with a response snippet that holds Marker,
// and returns the event.
func IngestMarked(t *testing.T, s store.DB) store.Event {
	t.Helper()
	e := markedEvent("evt_marked_"+newID(), baseTime)
	ingest(t, s, item(e, "marked"))
	c := outcome(claim(t, s, "marked", 1, baseTime)[0], store.StatusDone, baseTime)
	c.Attempt.ResponseSnippet = "thanks " + Marker
	c.Attempt.ResponseHeaders = map[string][]string{"X-Echo": {Marker}}
	complete(t, s, c)
	return e
}

// sealedRow is an event written by one store, with its delivery and the
// response snippet and headers it recorded.
type sealedRow struct {
	e          store.Event
	deliveryID int64
	snippet    string
	headers    map[string][]string
}

// writeSealed ingests a marked event to destination "d" through s, claims
// and completes its delivery with a snippet (failed, so that it is claimed
// again later), and returns it.
func writeSealed(t *testing.T, s store.DB, providerID string) sealedRow {
	t.Helper()
	e := markedEvent(providerID, baseTime)
	ingest(t, s, item(e, "d"))
	cs := claim(t, s, "d", 10, baseTime)
	if len(cs) != 1 {
		t.Fatalf("claimed %d deliveries, want 1", len(cs))
	}
	checkEvent(t, cs[0].Event, e)
	c := outcome(cs[0], store.StatusFailed, baseTime)
	c.NextAttemptAt = baseTime.Add(time.Hour)
	c.Attempt.ResponseSnippet = "busy " + providerID + " \x00\xff"
	c.Attempt.ResponseHeaders = map[string][]string{"X-Echo": {providerID, Marker}}
	complete(t, s, c)
	return sealedRow{e: e, deliveryID: c.DeliveryID, snippet: c.Attempt.ResponseSnippet, headers: c.Attempt.ResponseHeaders}
}

// checkReads fails unless every read of s returns the rows exactly:
// GetEvent and EventByProviderID (the raw query too), EventBodies, the listing's body size,
// DeliveryAttempts, and a claim.
func checkReads(t *testing.T, s store.DB, rows ...sealedRow) {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.e.ID
		got := getEvent(t, s, r.e.ID)
		checkEvent(t, got, r.e)
		checkRawQuery(t, "GetEvent", got, r.e.RawQuery)
		byProvider, err := s.EventByProviderID(ctx, r.e.Source, r.e.ProviderEventID)
		if err != nil {
			t.Fatalf("EventByProviderID: %v", err)
		}
		checkEvent(t, byProvider, r.e)
		checkRawQuery(t, "EventByProviderID", byProvider, r.e.RawQuery)
		as := attempts(t, s, r.deliveryID)
		if len(as) != 1 || as[0].ResponseSnippet != r.snippet || !reflect.DeepEqual(as[0].ResponseHeaders, r.headers) {
			t.Errorf("attempts of %s = %+v, want one with snippet %q and response headers %v", r.e.ID, as, r.snippet, r.headers)
		}
	}
	bodies, err := s.EventBodies(ctx, ids)
	if err != nil {
		t.Fatalf("EventBodies: %v", err)
	}
	sizes := map[string]int64{}
	for _, es := range listPageAll(t, s) {
		sizes[es.Event.ID] = es.BodySize
	}
	for _, r := range rows {
		if !bytes.Equal(bodies[r.e.ID], r.e.Body) {
			t.Errorf("EventBodies[%s] = %q, want %q", r.e.ID, bodies[r.e.ID], r.e.Body)
		}
		if sizes[r.e.ID] != int64(len(r.e.Body)) {
			t.Errorf("listed body size of %s = %d, want %d", r.e.ID, sizes[r.e.ID], len(r.e.Body))
		}
	}
	cs := claim(t, s, "d", len(rows)+1, baseTime.Add(2*time.Hour))
	if len(cs) != len(rows) {
		t.Fatalf("claimed %d deliveries, want %d", len(cs), len(rows))
	}
	for _, c := range cs {
		for _, r := range rows {
			if r.e.ID == c.Event.ID {
				checkEvent(t, c.Event, r.e)
			}
		}
		if err := s.ReleaseDeliveries(ctx, []store.Release{{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken}}); err != nil {
			t.Fatalf("ReleaseDeliveries: %v", err)
		}
	}
}

// listPageAll lists every event of s.
func listPageAll(t *testing.T, s store.DB) []store.EventSummary {
	t.Helper()
	es, _ := listPage(t, s, store.ListRequest{Limit: 1000})
	return es
}

// testSealedReads writes rows plain, under k1, and (k1 kept for reading)
// under k2, and reads them all back exactly through each store.
func testSealedReads(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	plain := writeSealed(t, open(nil), "evt_plain")
	old := writeSealed(t, open(TestKeys(t, "k1")), "evt_k1")
	s := open(TestKeys(t, "k2", "k1"))
	current := writeSealed(t, s, "evt_k2")
	checkReads(t, s, plain, old, current)
}

// testSealedMissingKey checks that, without the key of a row, every read
// of it fails with payloadcrypt.ErrUnknownKey and returns no bytes.
func testSealedMissingKey(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	r := writeSealed(t, open(TestKeys(t, "k1")), "evt_k1")
	for name, keys := range map[string]*payloadcrypt.Ring{"no keys": nil, "other keys": TestKeys(t, "k2")} {
		checkUnreadable(t, name, open(keys), r, payloadcrypt.ErrUnknownKey)
	}
}

// testSealedWrongKey checks that a key of the row's id but another secret
// opens nothing: every read fails with payloadcrypt.ErrAuth.
func testSealedWrongKey(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	r := writeSealed(t, open(TestKeys(t, "k1")), "evt_k1")
	wrong, err := payloadcrypt.NewRing([]payloadcrypt.Key{{ID: "k1", Secret: bytes.Repeat([]byte{7}, payloadcrypt.KeySize)}})
	if err != nil {
		t.Fatal(err)
	}
	checkUnreadable(t, "wrong key", open(wrong), r, payloadcrypt.ErrAuth)
}

// checkUnreadable fails unless every read of r through s fails with want.
func checkUnreadable(t *testing.T, name string, s store.DB, r sealedRow, want error) {
	t.Helper()
	ctx := context.Background()
	if e, err := s.GetEvent(ctx, r.e.ID); !errors.Is(err, want) || e.Body != nil {
		t.Errorf("%s: GetEvent = %d bytes, %v; want %v", name, len(e.Body), err, want)
	}
	if _, err := s.EventByProviderID(ctx, r.e.Source, r.e.ProviderEventID); !errors.Is(err, want) {
		t.Errorf("%s: EventByProviderID error = %v, want %v", name, err, want)
	}
	if _, err := s.EventBodies(ctx, []string{r.e.ID}); !errors.Is(err, want) {
		t.Errorf("%s: EventBodies error = %v, want %v", name, err, want)
	}
	if _, err := s.DeliveryAttempts(ctx, r.deliveryID); !errors.Is(err, want) {
		t.Errorf("%s: DeliveryAttempts error = %v, want %v", name, err, want)
	}
	cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "d", Max: 1, Lease: testLease, Now: baseTime.Add(2 * time.Hour)})
	if !errors.Is(err, want) || len(cs) != 0 {
		t.Errorf("%s: ClaimDeliveries = %d claims, %v; want %v", name, len(cs), err, want)
	}
	if err != nil && errors.Is(err, store.ErrUnavailable) {
		t.Errorf("%s: a missing key reads as the database unavailable: %v", name, err)
	}
}

// CheckNotStored writes IngestMarked's rows twice, plain and sealed, each
// on a store of its own from open, and fails unless count, which tells how
// many times the database as stored (files, raw columns) holds Marker,
// finds it in the plain one (so the scan finds what it looks for) and
// nowhere in the sealed one.
func CheckNotStored(t *testing.T, open func(t *testing.T, keys *payloadcrypt.Ring) (s store.DB, count func() int)) {
	for _, tc := range []struct {
		name  string
		keys  *payloadcrypt.Ring
		found bool
	}{
		{"plain", nil, true},
		{"sealed", TestKeys(t, "k1"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, count := open(t, tc.keys)
			IngestMarked(t, s)
			if n := count(); (n > 0) != tc.found {
				t.Errorf("the database holds the marker %d times, want found=%t", n, tc.found)
			}
		})
	}
}

// testTextSearchPassesSealedRows searches, through a store without keys,
// rows written plain and sealed: the plain one is found, the sealed one is
// counted as not searched. Through a store with keys, a text search is
// refused.
func testTextSearchPassesSealedRows(t *testing.T, open func(*payloadcrypt.Ring) store.DB) {
	plain := writeSealed(t, open(nil), "evt_plain")
	writeSealed(t, open(TestKeys(t, "k1")), "evt_k1")
	p, err := open(nil).SearchEvents(context.Background(), store.SearchRequest{Text: []byte(Marker)})
	if err != nil {
		t.Fatalf("SearchEvents: %v", err)
	}
	if len(p.Events) != 1 || p.Events[0].Event.ID != plain.e.ID || p.Scanned != 2 || p.Sealed != 1 || !p.Exhausted {
		t.Errorf("search = %d events, %d read, %d sealed, exhausted %t; want %s alone, 2 read, 1 sealed, exhausted",
			len(p.Events), p.Scanned, p.Sealed, p.Exhausted, plain.e.ID)
	}
	if _, err := open(TestKeys(t, "k1")).SearchEvents(context.Background(), store.SearchRequest{Text: []byte(Marker)}); !errors.Is(err, store.ErrSealedSearch) {
		t.Errorf("a text search through a store with keys: error %v, want ErrSealedSearch", err)
	}
}
