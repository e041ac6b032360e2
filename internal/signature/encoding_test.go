package signature

import (
	"bytes"
	"strings"
	"testing"
)

func TestDecodeSignature(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		enc  encoding
		in   string
		want []byte
		ok   bool
	}{
		{"hex", hexEncoding, "00ff10", []byte{0, 255, 16}, true},
		{"upper-case hex", hexEncoding, "00FF10", []byte{0, 255, 16}, true},
		{"odd hex", hexEncoding, "00f", nil, false},
		{"not hex", hexEncoding, "zz", nil, false},
		{"empty hex", hexEncoding, "", []byte{}, true},
		{"longest hex", hexEncoding, strings.Repeat("ab", 64), bytes.Repeat([]byte{0xab}, 64), true},
		{"hex too long", hexEncoding, strings.Repeat("ab", 65), nil, false},
		{"base64", base64Encoding, "AP8Q", []byte{0, 255, 16}, true},
		{"base64 padded", base64Encoding, "AP8=", []byte{0, 255}, true},
		{"base64 non-canonical padding bits", base64Encoding, "AP9=", nil, false},
		{"base64 missing padding", base64Encoding, "AP8", nil, false},
		{"base64 url alphabet", base64Encoding, "AP-_", nil, false},
		{"base64 trailing garbage", base64Encoding, "AP8=x", nil, false},
		{"base64 with newline", base64Encoding, "AP\n8Q", nil, false},
		{"base64 with carriage return", base64Encoding, "AP8Q\r", nil, false},
		{"base64 longer than any digest", base64Encoding, strings.Repeat("A", 92), nil, false},
		{"base64 at the length limit", base64Encoding, strings.Repeat("A", 128), nil, false},
		{"base64 of sha512", base64Encoding, strings.Repeat("q6ur", 21) + "qw==", bytes.Repeat([]byte{0xab}, 64), true},
	}
	for _, tt := range tests {
		var buf sigBuf
		got, ok := tt.enc.decode(&buf, tt.in)
		if ok != tt.ok || (ok && !bytes.Equal(got, tt.want)) {
			t.Errorf("%s: decode(%q) = %x, %v; want %x, %v", tt.name, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzSignatureEncoding checks that the decoders of signature values never
// panic and accept only canonical text: re-encoding what they accept gives
// the input back (up to the case of hex digits). So a non-canonical
// spelling of a valid signature can never verify.
func FuzzSignatureEncoding(f *testing.F) {
	f.Add("4f1cd7feda9826e746b7d482c4badebb657398df1099e1046364f6196a230150")
	f.Add("g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	f.Fuzz(func(t *testing.T, s string) {
		var buf sigBuf
		if got, ok := hexEncoding.decode(&buf, s); ok {
			if again := hexEncoding.encode(got); !strings.EqualFold(again, s) {
				t.Fatalf("hex %q decoded to %x, which encodes as %q", s, got, again)
			}
		}
		if got, ok := base64Encoding.decode(&buf, s); ok {
			if again := base64Encoding.encode(got); again != s {
				t.Fatalf("base64 %q decoded to %x, which encodes as %q", s, got, again)
			}
		}
	})
}
