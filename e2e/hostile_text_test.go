package e2e

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// textConfig has the Stripe source and a pull destination ordered by the
// body's data.object.id, so that ingest derives an ordering key.
const textConfig = stripeSource + `destinations:
  - name: ordered
    pull: true
    secret: "whsec_dGV4dC1vcmRlcmVkLXNpZ25pbmc="
    sources: [stripe]
    ordering_key: data.object.id
`

// textPost is one signed Stripe event of the text tests.
type textPost struct {
	name, id    string // id is the provider id the body carries, as JSON text
	extra       string // more JSON members
	contentType string
	want        int
}

// TestHostileProviderIDBytes posts signed Stripe events whose ids decoding
// would turn into one (invalid UTF-8, unpaired surrogate escapes): each is
// refused with 400, so no event is acknowledged without being stored. Ids
// that decode exactly, the escaped replacement character and a surrogate
// pair among them, are stored as distinct events.
func TestHostileProviderIDBytes(t *testing.T) {
	t.Parallel()
	posts := []textPost{
		{name: "raw 0xfe", id: "evt_X_\xfe", want: 400},
		{name: "raw 0xff", id: "evt_X_\xff", want: 400},
		{name: "lone high surrogate", id: `evt_X_\ud800`, want: 400},
		{name: "lone low surrogate", id: `evt_X_\udfff`, want: 400},
		{name: "escaped U+FFFD", id: `evt_X_\ufffd`, want: 200},
		{name: "surrogate pair", id: `evt_X_\ud83d\ude00`, want: 200},
	}
	runTextPosts(t, "provider-id-bytes", posts)
}

// TestHostileDerivedValuesParity posts signed Stripe events whose derived
// values PostgreSQL once refused on every retry while SQLite stored them:
// a 3 000-byte ordering key, a NUL in the ordering key and in the type, a
// Content-Type with a byte that is not UTF-8. Both drivers store each one
// (200), a retry is a duplicate (200), and the two events of one long key
// share a key.
func TestHostileDerivedValuesParity(t *testing.T) {
	t.Parallel()
	// Random hex, so that PostgreSQL cannot compress it into an index entry.
	seed := make([]byte, 1500)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range seed {
		seed[i] = byte(r.Uint32())
	}
	long := hex.EncodeToString(seed)
	posts := []textPost{
		{name: "3000-byte ordering key", id: "evt_long_key_1", extra: `"data":{"object":{"id":"` + long + `"}}`, want: 200},
		{name: "3000-byte ordering key again", id: "evt_long_key_2", extra: `"data":{"object":{"id":"` + long + `"}}`, want: 200},
		{name: "NUL in ordering key", id: "evt_nul_key", extra: `"data":{"object":{"id":"a\u0000b"}}`, want: 200},
		{name: "NUL in type", id: "evt_nul_type", extra: `"kind":"x"`, want: 200},
		{name: "Content-Type not UTF-8", id: "evt_bad_ctype", contentType: "application/json; charset=\xfe", want: 200},
	}
	runTextPosts(t, "derived-values-parity", posts)
}

// runTextPosts posts each event twice to a relay on each driver and checks
// the answers and what was stored: a 200 always means stored.
func runTextPosts(t *testing.T, what string, posts []textPost) {
	t.Helper()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			database := driver.URL(t)
			p := startRelay(t, database, textConfig, stripeEnv)
			st := openStore(t, database)
			answered := map[int]int{}
			for _, tp := range posts {
				typ := "invoice.paid"
				if strings.Contains(tp.name, "NUL in type") {
					typ = `invoice.\u0000paid`
				}
				body := fmt.Appendf(nil, `{"id":"%s","type":"%s"`, tp.id, typ)
				if tp.extra != "" {
					body = append(append(body, ','), tp.extra...)
				}
				body = append(body, '}')
				for try := range 2 {
					req := hostileStripe(t, p, body, nil)
					if tp.contentType != "" {
						req.Header["Content-Type"] = []string{tp.contentType}
					}
					status, _, answer, err := hostileDo(http.DefaultClient, req)
					if err != nil {
						t.Fatalf("%s: %v", tp.name, err)
					}
					answered[status]++
					if status != tp.want {
						t.Errorf("%s, try %d: %d %s, want %d", tp.name, try+1, status, answer, tp.want)
					}
				}
			}
			stored := countStored(t, st, "stripe")
			want := int64(0)
			for _, tp := range posts {
				if tp.want == 200 {
					want++
				}
			}
			if stored != want {
				t.Errorf("%d events stored, want %d (one per event answered 200)", stored, want)
			}
			checkSharedKey(t, st, posts)
			t.Logf("RELIABILITY %s driver=%s posts=%d answered=%v stored=%d", what, driver.Name, 2*len(posts), answered, stored)
		})
	}
}

// checkSharedKey checks that the two long-key events, when posted, were
// given one ordering key.
func checkSharedKey(t *testing.T, st store.Store, posts []textPost) {
	t.Helper()
	var keys []string
	for _, tp := range posts {
		if !strings.HasPrefix(tp.id, "evt_long_key") {
			continue
		}
		e, err := st.EventByProviderID(context.Background(), "stripe", tp.id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		ds, err := st.EventDeliveries(context.Background(), e.ID)
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries of %s: %v %v", tp.id, ds, err)
		}
		keys = append(keys, ds[0].OrderingKey)
	}
	if len(keys) == 2 && (keys[0] != keys[1] || keys[0] == "") {
		t.Errorf("the two events of one long key were given keys %.40q and %.40q", keys[0], keys[1])
	}
}
