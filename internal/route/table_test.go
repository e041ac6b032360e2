package route

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
	tb, err := NewTable([]Destination{{Name: "billing", Sources: []string{"stripe"}}}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tb.now = func() time.Time { return now }
	routed := func() (string, error) {
		ds, err := tb.Lookup("stripe", "invoice.paid", nil)
		names := make([]string, len(ds))
		for i, d := range ds {
			names[i] = d.Destination
		}
		return fmt.Sprint(names), err
	}
	if _, err := routed(); !errors.Is(err, ErrStale) {
		t.Fatalf("Lookup before the registered destinations are known = %v, want ErrStale", err)
	}
	registered := []Destination{
		{Name: "orders", Sources: []string{"stripe"}, Types: []string{"invoice.*"}},
		{Name: "billing", Sources: []string{"stripe"}, Types: []string{"never"}}, // the config's wins
		{Name: "crm", Sources: []string{"github"}},
	}
	if err := tb.SetRegistered(registered, now); err != nil {
		t.Fatal(err)
	}
	if got, err := routed(); err != nil || got != "[billing orders]" {
		t.Errorf("Lookup = %s, %v; want billing then orders", got, err)
	}
	if err := tb.SetConfigured(nil); err != nil {
		t.Fatal(err)
	}
	if got, err := routed(); err != nil || got != "[orders]" {
		t.Errorf("Lookup once billing is no longer configured = %s, %v; want orders alone (the registered billing wants another type)", got, err)
	}
	now = now.Add(10 * time.Second)
	if _, err := routed(); err != nil {
		t.Errorf("Lookup at the max age = %v, want it still routed", err)
	}
	now = now.Add(time.Nanosecond)
	if _, err := routed(); !errors.Is(err, ErrStale) {
		t.Errorf("Lookup past the max age = %v, want ErrStale", err)
	}
	if err := tb.SetRegistered([]Destination{{Name: "bad", Sources: []string{"stripe"}, Types: []string{"["}}}, now); err == nil {
		t.Error("SetRegistered accepted a malformed type glob")
	}
	if _, err := routed(); !errors.Is(err, ErrStale) {
		t.Errorf("Lookup after a refused SetRegistered = %v, want still stale", err)
	}
}
