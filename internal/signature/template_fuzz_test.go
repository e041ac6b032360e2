package signature

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"
)

// FuzzSignedContent checks the generic scheme's signed-content template
// parser: it never panics, accepts only templates with {body} exactly once
// and no stray brace, reads them back to the text they came from, and
// signs exactly the bytes a plain substitution of the placeholders gives.
func FuzzSignedContent(f *testing.F) {
	f.Add("{timestamp}.{body}", "1700000000", "msg_1", []byte(`{"a":1}`))
	f.Fuzz(func(t *testing.T, text, ts, id string, body []byte) {
		tmpl, err := parseTemplate(text)
		if err != nil {
			return
		}
		var back strings.Builder
		bodies := 0
		for _, p := range tmpl {
			switch p.kind {
			case partLiteral:
				if p.text == "" || strings.ContainsAny(p.text, "{}") {
					t.Fatalf("template %q has the literal %q", text, p.text)
				}
				back.WriteString(p.text)
			case partBody:
				bodies++
				back.WriteString("{body}")
			case partTimestamp:
				back.WriteString("{timestamp}")
			case partID:
				back.WriteString("{id}")
			}
		}
		if bodies != 1 || back.String() != text {
			t.Fatalf("template %q parsed with %d bodies, reads back as %q", text, bodies, back.String())
		}
		if strings.Count(text, "{body}") != 1 {
			t.Fatalf("template %q accepted without exactly one {body}", text)
		}
		// Outside the placeholders the text has no brace, so one pass of
		// a replacer on each side of {body} is the plain substitution.
		before, after, _ := strings.Cut(text, "{body}")
		r := strings.NewReplacer("{timestamp}", ts, "{id}", id)
		before, after = r.Replace(before), r.Replace(after)
		want := oracleMAC(sha256.New, []byte(fuzzSecret), []byte(before), body, []byte(after))
		ring, err := newKeyring([]string{fuzzSecret}, sha256.New, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := ring[0].compute(tmpl, &content{id: id, timestamp: ts, body: body})
		got := bytes.Clone(st.digest())
		st.release()
		if !bytes.Equal(got, want) {
			t.Fatalf("template %q signs %x; the substituted text %q+body+%q gives %x", text, got, before, after, want)
		}
	})
}

// FuzzUnixTimestamp checks the reader of signed timestamps: it accepts
// exactly one to twelve decimal digits, and writes back what it read,
// leading zeros aside.
func FuzzUnixTimestamp(f *testing.F) {
	f.Add("1700000000")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseUnix(s)
		want, wantOK := oracleUnix(s)
		if ok != wantOK || (ok && !got.Equal(want)) {
			t.Fatalf("parseUnix(%q) = %v, %v; want %v, %v", s, got, ok, want, wantOK)
		}
		if !ok {
			return
		}
		if back, digits := formatUnix(got), strings.TrimLeft(s, "0"); back != digits && !(digits == "" && back == "0") {
			t.Fatalf("parseUnix(%q) writes back as %q", s, back)
		}
	})
}
