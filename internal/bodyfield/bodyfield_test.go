package bodyfield

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	const event = `{
		"id": "evt_1",
		"type": "invoice.paid",
		"created": 1700000000,
		"livemode": false,
		"big": 820982911946154508,
		"ratio": 1.50,
		"neg": -3e2,
		"nothing": null,
		"list": [1, 2],
		"data": {"object": {"id": "in_1", "amount": 0, "meta": {}}},
		"esc": "a\u00e9\n\"q\"",
		"dots": {"a.b": "x"}
	}`
	tests := []struct {
		name, body, path string
		want             string
		ok               bool
	}{
		{"top string", event, "id", "evt_1", true},
		{"top string with dot", event, "type", "invoice.paid", true},
		{"integer", event, "created", "1700000000", true},
		{"large integer keeps every digit", event, "big", "820982911946154508", true},
		{"number literal text kept", event, "ratio", "1.50", true},
		{"exponent kept", event, "neg", "-3e2", true},
		{"false", event, "livemode", "false", true},
		{"true", `{"ok":true}`, "ok", "true", true},
		{"nested", event, "data.object.id", "in_1", true},
		{"nested zero", event, "data.object.amount", "0", true},
		{"escaped string decoded", event, "esc", "a\u00e9\n\"q\"", true},
		{"empty string", `{"s":""}`, "s", "", true},
		{"object", event, "data", "", false},
		{"empty object", event, "data.object.meta", "", false},
		{"array", event, "list", "", false},
		{"null", event, "nothing", "", false},
		{"missing", event, "nope", "", false},
		{"missing nested", event, "data.object.nope", "", false},
		{"through a string", event, "id.x", "", false},
		{"through an array", event, "list.0", "", false},
		{"through null", event, "nothing.x", "", false},
		{"key with a dot is not reachable", event, "dots.a.b", "", false},
		{"empty path", event, "", "", false},
		{"empty segment", event, "data..id", "", false},
		{"invalid json", `{"id": "evt_1",}`, "id", "", false},
		{"truncated json", `{"id": "evt_1"`, "id", "", false},
		{"trailing garbage", `{"id": "evt_1"} x`, "id", "", false},
		{"top-level array", `[{"id":"x"}]`, "id", "", false},
		{"top-level string", `"id"`, "id", "", false},
		{"top-level null", `null`, "id", "", false},
		{"empty body", ``, "id", "", false},
		{"form body", `id=evt_1&type=x`, "id", "", false},
		{"duplicate key takes the last", `{"id":"a","id":"b"}`, "id", "b", true},
		{"white space around body", " \n{\"id\":\"a\"}\n ", "id", "a", true},
		{"invalid UTF-8 is not read", "{\"id\":\"evt_\xfe\"}", "id", "", false},
		{"lone high surrogate is not read", `{"id":"evt_\ud800"}`, "id", "", false},
		{"lone low surrogate is not read", `{"id":"evt_\udc00x"}`, "id", "", false},
		{"high surrogate then a letter", `{"id":"evt_\ud800\u0041"}`, "id", "", false},
		{"surrogate pair is read", `{"id":"evt_\ud83d\ude00"}`, "id", "evt_\U0001F600", true},
		{"escaped replacement character is read", `{"id":"evt_\ufffd"}`, "id", "evt_\ufffd", true},
		{"raw replacement character is read", "{\"id\":\"evt_\uFFFD\"}", "id", "evt_\ufffd", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Lookup([]byte(tt.body), tt.path)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.path, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestLookupNesting(t *testing.T) {
	t.Parallel()
	nest := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `,"id":"x"}`)
	}
	// encoding/json allows 10000 levels of nesting and no more.
	if !json.Valid(nest(10000)) || json.Valid(nest(10001)) {
		t.Fatal("encoding/json's nesting limit is not 10000")
	}
	if got, ok := Lookup(nest(10000), "id"); !ok || got != "x" {
		t.Errorf("Lookup at depth 10000 = %q, %v; want x", got, ok)
	}
	if _, ok := Lookup(nest(10001), "id"); ok {
		t.Error("Lookup accepted nesting deeper than encoding/json does")
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		ok   bool
	}{
		{"id", true},
		{"data.object.id", true},
		{"event.type", true},
		{"a-b_c.d1", true},
		{"", false},
		{".", false},
		{".id", false},
		{"id.", false},
		{"data..id", false},
		{"data. id", false},
		{"data.object id", false},
		{"id\t", false},
		{"id\n", false},
	}
	for _, tt := range tests {
		err := Valid(tt.path)
		if (err == nil) != tt.ok {
			t.Errorf("Valid(%q) = %v; want ok %v", tt.path, err, tt.ok)
		}
	}
}

// TestLookupLossy checks that LookupLossy reads what Lookup refuses, as
// encoding/json does.
func TestLookupLossy(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"{\"k\":\"a\xfe\"}", "{\"k\":\"a\xff\"}", `{"k":"a\ud800"}`, `{"k":"a\udfff"}`} {
		if _, ok := Lookup([]byte(body), "k"); ok {
			t.Errorf("Lookup(%q) read a string it cannot keep exactly", body)
		}
		if got, ok := LookupLossy([]byte(body), "k"); !ok || got != "a\ufffd" {
			t.Errorf("LookupLossy(%q) = %q, %v; want a\ufffd", body, got, ok)
		}
	}
}

// FuzzLookup checks Lookup and its scanner against encoding/json: the
// scanner accepts exactly what json.Valid accepts, and whatever Lookup
// finds at a path must be what a plain decode of the body holds there.
func FuzzLookup(f *testing.F) {
	f.Add([]byte(`{"id":"evt_1","type":"a.b"}`), "id")
	f.Add([]byte(`{"data":{"object":{"id":12345678901234567890}}}`), "data.object.id")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		if v, want := valid(body), json.Valid(body); v != want {
			t.Fatalf("valid(%q) = %v; json.Valid says %v", body, v, want)
		}
		got, ok := LookupLossy(body, path)
		if !ok {
			return
		}
		if exact, found := Lookup(body, path); found && exact != got {
			t.Fatalf("Lookup(%q) = %q; LookupLossy reads %q", path, exact, got)
		} else if found && !utf8.ValidString(exact) {
			t.Fatalf("Lookup(%q) = %q, not UTF-8", path, exact)
		} else if !found && !strings.ContainsRune(got, utf8.RuneError) {
			t.Fatalf("Lookup(%q) refused %q, which has nothing replaced", path, got)
		}
		var doc map[string]any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("Lookup found %q in a body encoding/json rejects: %v", got, err)
		}
		var v any = doc
		for _, seg := range strings.Split(path, ".") {
			m, isObj := v.(map[string]any)
			if !isObj {
				t.Fatalf("Lookup found %q through a non-object at %q", got, seg)
			}
			v = m[seg]
		}
		var want string
		switch x := v.(type) {
		case string:
			want = x
		case json.Number:
			want = x.String()
		case bool:
			want = "false"
			if x {
				want = "true"
			}
		default:
			t.Fatalf("Lookup found %q where encoding/json has %T", got, v)
		}
		if got != want {
			t.Fatalf("Lookup(%q) = %q; encoding/json has %q", path, got, want)
		}
	})
}

// BenchmarkLookup reads a nested field of a 2 KiB event.
func BenchmarkLookup(b *testing.B) {
	body := []byte(`{"id":"evt_1","object":"event","type":"invoice.paid","created":1700000000,"data":{"object":{"id":"in_1","pad":"`)
	body = append(body, bytes.Repeat([]byte("x"), 2048-len(body)-4)...)
	body = append(body, `"}}}`...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if v, ok := Lookup(body, "data.object.id"); !ok || v != "in_1" {
			b.Fatal(v, ok)
		}
	}
}
