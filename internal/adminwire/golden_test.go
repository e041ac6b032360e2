package adminwire_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// goldenPath holds the JSON of every request and answer of the admin API.
const goldenPath = "testdata/wire.golden"

var updateGolden = flag.Bool("update", false, "rewrite "+goldenPath)

// wireShapes are the bodies the admin API reads and writes, each named as
// its line in the golden file. The types they hold are covered through
// them.
var wireShapes = []struct {
	name string
	v    any
}{
	{"Error", adminwire.Error{}},
	{"EventList", adminwire.EventList{}},
	{"EventDetail", adminwire.EventDetail{}},
	{"Delivery", adminwire.Delivery{}},
	{"Verification", adminwire.Verification{}},
	{"ReplayRequest", adminwire.ReplayRequest{}},
	{"ReplayResult", adminwire.ReplayResult{}},
	{"BackfillRequest", adminwire.BackfillRequest{}},
	{"BackfillResult", adminwire.BackfillResult{}},
	{"Claimed", adminwire.Claimed{}},
	{"AckRequest", adminwire.AckRequest{}},
	{"AckResult", adminwire.AckResult{}},
	{"Stats", adminwire.Stats{}},
	{"Nodes", adminwire.Nodes{}},
	{"PurgeRequest", adminwire.PurgeRequest{}},
	{"PurgeResult", adminwire.PurgeResult{}},
	{"JobReplayRequest", adminwire.JobReplayRequest{}},
	{"Job", adminwire.Job{}},
	{"JobList", adminwire.JobList{}},
	{"Rejections", adminwire.Rejections{}},
	{"AuditLog", adminwire.AuditLog{}},
	{"Destinations", adminwire.Destinations{}},
	{"PauseResult", adminwire.PauseResult{}},
	{"Secrets", adminwire.Secrets{}},
	{"ReloadSummary", adminwire.ReloadSummary{}},
	{"Failures", adminwire.Failures{}},
}

// TestWireGolden encodes every body twice, with each of its fields set and
// with none, and compares the bytes with the golden file: a renamed field,
// a changed omitempty or a field become a pointer fails it. A field added
// on purpose is recorded with go test -update.
func TestWireGolden(t *testing.T) {
	t.Parallel()
	var got bytes.Buffer
	for _, s := range wireShapes {
		full := reflect.New(reflect.TypeOf(s.v))
		fill(full.Elem())
		for _, c := range []struct {
			suffix string
			v      any
		}{{"", full.Interface()}, {" zero", s.v}} {
			b, err := json.Marshal(c.v)
			if err != nil {
				t.Fatalf("encode %s: %v", s.name, err)
			}
			fmt.Fprintf(&got, "%s%s\t%s\n", s.name, c.suffix, b)
		}
	}
	if *updateGolden {
		if err := os.WriteFile(goldenPath, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(gotLines), len(wantLines)) {
		var g, w []byte
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if !bytes.Equal(g, w) {
			t.Errorf("%s line %d differs (go test -update records a change made on purpose)\n got: %s\nwant: %s", goldenPath, i+1, g, w)
		}
	}
}

// goldenTime is the time every time field is set to.
var goldenTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// fill sets every field reachable from v: pointers, slices and maps get
// one filled element, so that each field's name appears in the JSON.
func fill(v reflect.Value) {
	if !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(goldenTime))
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf("v"))
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	default:
		panic("fill: no value for " + v.Type().String())
	}
}
