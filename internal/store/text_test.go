package store

import (
	"strings"
	"testing"
)

func TestOrderingKey(t *testing.T) {
	t.Parallel()
	hashed := func(k string) bool { return strings.HasPrefix(k, orderingKeyHash) && len(k) == len(orderingKeyHash)+64 }
	for _, tc := range []struct {
		in   string
		kept bool
	}{
		{"", true},
		{"cus_123", true},
		{strings.Repeat("a", MaxOrderingKeyLen), true},
		{strings.Repeat("a", MaxOrderingKeyLen+1), false},
		{"a\x00b", false},
		{"a\xfe", false},
		{"sha256:abc", false}, // could be taken for a hash
	} {
		got := OrderingKey(tc.in)
		if tc.kept && got != tc.in || !tc.kept && !hashed(got) {
			t.Errorf("OrderingKey(%.30q) = %.80q, kept %t", tc.in, got, tc.kept)
		}
	}
	if OrderingKey("a\xfe") == OrderingKey("a\xff") {
		t.Error("two keys differing in a byte that is not UTF-8 were stored as one")
	}
}

func TestStorableLeavesTheCallersItems(t *testing.T) {
	t.Parallel()
	items := []IngestItem{
		{Event: Event{ID: "1", Source: "s", ProviderEventID: "p1", Type: "ok"}, Deliveries: []NewDelivery{{Destination: "d", OrderingKey: "k"}}},
		{Event: Event{ID: "2", Source: "s", ProviderEventID: "p2", Type: "t\x00", ContentType: "x\xff"},
			Deliveries: []NewDelivery{{Destination: "d", OrderingKey: "k"}, {Destination: "e", OrderingKey: "k\x00"}}},
	}
	out, err := Storable(items)
	if err != nil {
		t.Fatal(err)
	}
	if items[1].Event.Type != "t\x00" || items[1].Event.ContentType != "x\xff" || items[1].Deliveries[1].OrderingKey != "k\x00" {
		t.Errorf("the caller's items were changed: %+v", items[1])
	}
	if out[1].Event.Type != "t" || out[1].Event.ContentType != "x\uFFFD" || out[1].Deliveries[1].OrderingKey != OrderingKey("k\x00") || out[1].Deliveries[0].OrderingKey != "k" {
		t.Errorf("Storable = %+v", out[1])
	}
	if &out[0].Deliveries[0] != &items[0].Deliveries[0] {
		t.Error("an item that needs no change was copied")
	}
}
