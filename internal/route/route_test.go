package route

import (
	"reflect"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestRoute(t *testing.T) {
	t.Parallel()
	r, err := New([]Destination{
		{Name: "billing", Sources: []string{"stripe"}, Types: []string{"invoice.*", "customer.subscription.*"}, OrderingKey: "data.object.id"},
		{Name: "audit", Sources: []string{"stripe", "github"}},
		{Name: "deploys", Sources: []string{"github"}, Types: []string{"push"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"data":{"object":{"id":"sub_1"}}}`)
	tests := []struct {
		source, typ string
		want        []store.NewDelivery
	}{
		{"stripe", "customer.subscription.updated", []store.NewDelivery{{Destination: "billing", OrderingKey: "sub_1"}, {Destination: "audit"}}},
		{"stripe", "invoice.paid", []store.NewDelivery{{Destination: "billing", OrderingKey: "sub_1"}, {Destination: "audit"}}},
		{"stripe", "charge.succeeded", []store.NewDelivery{{Destination: "audit"}}},
		{"github", "push", []store.NewDelivery{{Destination: "audit"}, {Destination: "deploys"}}},
		{"github", "pull_request", []store.NewDelivery{{Destination: "audit"}}},
		{"shop", "orders/create", nil},
	}
	for _, tt := range tests {
		got := r.Route(tt.source, tt.typ, body)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Route(%q, %q) = %+v, want %+v", tt.source, tt.typ, got, tt.want)
		}
	}
}

func TestRouteOrderingKeyMissing(t *testing.T) {
	t.Parallel()
	r, err := New([]Destination{{Name: "billing", Sources: []string{"stripe"}, OrderingKey: "data.object.id"}})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Route("stripe", "x", []byte(`not json`))
	want := []store.NewDelivery{{Destination: "billing"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Route = %+v, want %+v", got, want)
	}
}

func TestNewRejectsBadGlob(t *testing.T) {
	t.Parallel()
	if _, err := New([]Destination{{Name: "d", Sources: []string{"s"}, Types: []string{"[a-"}}}); err == nil {
		t.Fatal("New accepted a malformed glob")
	}
}
