package bodyfield

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestPlainWord checks the eight-byte test against the byte table: one
// odd byte in any position is always caught, and a word judged plain holds
// only plain bytes.
func TestPlainWord(t *testing.T) {
	t.Parallel()
	for pos := range 8 {
		for b := range 256 {
			w := []byte("aaaaaaaa")
			w[pos] = byte(b)
			if got := plainWord(binary.LittleEndian.Uint64(w)); got != plainByte[b] {
				t.Errorf("byte %#x at %d: plainWord = %v; want %v", b, pos, got, plainByte[b])
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		x := r.Uint64()
		if !plainWord(x) {
			continue
		}
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], x)
		for _, b := range w {
			if !plainByte[b] {
				t.Fatalf("plainWord(%x) is true but holds %#x", w, b)
			}
		}
	}
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	docs := []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `true`, `null`, ` {"a" : [1, {"b": null}] } `,
		`{"s":"\u00e9\n\"\\\/\b\f\r\t"}`, `"\u12"`, `"\x"`, "\"\x01\"", "\"\x7f\xff\"", `"abcdefghijklmnop\"q"`,
		`01`, `1.`, `.5`, `1e`, `-`, `+1`, `1e+`, `tru`, `nul`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`,
		`{a:1}`, `{"a":1}}`, `[1 2]`, `{"a":1 "b":2}`, ``, ` `, `{"a":1}x`, "{\"a\":\"b\x00\"}",
	}
	for _, d := range docs {
		if got, want := valid([]byte(d)), json.Valid([]byte(d)); got != want {
			t.Errorf("valid(%q) = %v; json.Valid says %v", d, got, want)
		}
	}
}
