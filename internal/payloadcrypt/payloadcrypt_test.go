package payloadcrypt_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, payloadcrypt.KeySize) }

func ring(t *testing.T, keys ...payloadcrypt.Key) *payloadcrypt.Ring {
	t.Helper()
	r, err := payloadcrypt.NewRing(keys)
	if err != nil {
		t.Fatalf("NewRing: %v", err)
	}
	return r
}

func TestSealOpen(t *testing.T) {
	t.Parallel()
	r := ring(t, payloadcrypt.Key{ID: "k2", Secret: key(2)}, payloadcrypt.Key{ID: "k1", Secret: key(1)})
	for _, value := range [][]byte{{}, []byte("x"), []byte(`{"id":"evt_1","email":"a@example.com"}`), bytes.Repeat([]byte{0, 0xff}, 5000)} {
		sealed, id, err := r.Seal([]byte("body evt_1"), value)
		if err != nil {
			t.Fatal(err)
		}
		if id != "k2" || len(sealed) != len(value)+payloadcrypt.Overhead {
			t.Fatalf("Seal: id %q, %d bytes for %d", id, len(sealed), len(value))
		}
		if len(value) > 4 && bytes.Contains(sealed, value[:5]) {
			t.Fatalf("sealed value holds the plain text")
		}
		got, err := r.Open(id, []byte("body evt_1"), sealed)
		if err != nil || !bytes.Equal(got, value) || got == nil {
			t.Fatalf("Open = %q, %v; want %q", got, err, value)
		}
	}
}

func TestOpenFailures(t *testing.T) {
	t.Parallel()
	old := ring(t, payloadcrypt.Key{ID: "k1", Secret: key(1)})
	sealed, _, err := old.Seal([]byte("ad"), []byte("secret body"))
	if err != nil {
		t.Fatal(err)
	}
	altered := bytes.Clone(sealed)
	altered[len(altered)-1] ^= 1
	for _, tc := range []struct {
		name   string
		r      *payloadcrypt.Ring
		id, ad string
		value  []byte
		want   error
	}{
		{"no ring", nil, "k1", "ad", sealed, payloadcrypt.ErrUnknownKey},
		{"unknown id", ring(t, payloadcrypt.Key{ID: "k2", Secret: key(2)}), "k1", "ad", sealed, payloadcrypt.ErrUnknownKey},
		{"wrong key under the id", ring(t, payloadcrypt.Key{ID: "k1", Secret: key(9)}), "k1", "ad", sealed, payloadcrypt.ErrAuth},
		{"other row", old, "k1", "other", sealed, payloadcrypt.ErrAuth},
		{"altered", old, "k1", "ad", altered, payloadcrypt.ErrAuth},
		{"truncated", old, "k1", "ad", sealed[:5], payloadcrypt.ErrAuth},
	} {
		got, err := tc.r.Open(tc.id, []byte(tc.ad), tc.value)
		if !errors.Is(err, tc.want) || got != nil {
			t.Errorf("%s: Open = %q, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestNilRingSealsNothing(t *testing.T) {
	t.Parallel()
	var r *payloadcrypt.Ring
	sealed, id, err := r.Seal(nil, []byte("plain"))
	if err != nil || id != "" || string(sealed) != "plain" {
		t.Fatalf("Seal = %q, %q, %v", sealed, id, err)
	}
	got, err := r.Open("", nil, []byte("plain"))
	if err != nil || string(got) != "plain" {
		t.Fatalf("Open = %q, %v", got, err)
	}
}

func TestNewRingRefuses(t *testing.T) {
	t.Parallel()
	for _, keys := range [][]payloadcrypt.Key{
		nil,
		{{ID: "", Secret: key(1)}},
		{{ID: "a b", Secret: key(1)}},
		{{ID: "k", Secret: key(1)}, {ID: "k", Secret: key(2)}},
		{{ID: "k", Secret: key(1)[:16]}},
	} {
		if _, err := payloadcrypt.NewRing(keys); err == nil {
			t.Errorf("NewRing(%v) succeeded", keys)
		}
	}
}

func TestDecodeKey(t *testing.T) {
	t.Parallel()
	const std = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="
	for _, s := range []string{std, strings.TrimRight(std, "="), " " + std + "\n"} {
		if b, err := payloadcrypt.DecodeKey(s); err != nil || !bytes.Equal(b, key(1)) {
			t.Errorf("DecodeKey(%q) = %x, %v", s, b, err)
		}
	}
	for _, s := range []string{"", "not base64!", "AQEB"} {
		_, err := payloadcrypt.DecodeKey(s)
		if err == nil {
			t.Errorf("DecodeKey(%q) succeeded", s)
		} else if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("DecodeKey error holds the key: %v", err)
		}
	}
}

// BenchmarkSeal and BenchmarkOpen time one 2 KiB body, the size the
// relay's benchmarks send: the cost encryption adds to a write and a read.
func BenchmarkSeal(b *testing.B) {
	r, _ := payloadcrypt.NewRing([]payloadcrypt.Key{{ID: "k1", Secret: key(1)}})
	body := bytes.Repeat([]byte("x"), 2048)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, _, err := r.Seal([]byte("hookrelay events.body evt_1"), body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	r, _ := payloadcrypt.NewRing([]payloadcrypt.Key{{ID: "k1", Secret: key(1)}})
	sealed, id, _ := r.Seal([]byte("hookrelay events.body evt_1"), bytes.Repeat([]byte("x"), 2048))
	b.SetBytes(2048)
	for b.Loop() {
		if _, err := r.Open(id, []byte("hookrelay events.body evt_1"), sealed); err != nil {
			b.Fatal(err)
		}
	}
}
