package hookrelaytest_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/hookrelaytest"
)

// TestRoutes asks where events fan out to on a Relay that is not started,
// with handler destinations and a source and pull destination of its
// Config.File: by source, by type glob, none for a type or a source no
// destination takes, the File's destinations before the handlers.
func TestRoutes(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "hookrelay.yaml")
	yaml := "sources:\n  - {name: stripe, verify: stripe, secrets: [whsec_c3RyaXBlLXNlY3JldA]}\n" +
		"destinations:\n  - {name: audit, pull: true, secret: whsec_YXVkaXQtc2lnbmluZy1zZWNyZXQteHg=, sources: [stripe]}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := hookrelay.New(hookrelay.Config{File: file, Sources: []hookrelay.Source{
		{Name: "github", Verify: "github", Secrets: []string{"github-secret"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	nothing := func(context.Context, hookrelay.Tx, hookrelay.Event) error { return nil }
	r.Handle(hookrelay.Destination{Name: "billing", Sources: []string{"stripe"}, Types: []string{"invoice.*"}, OrderingKey: "data.object.customer"}, nothing)
	r.Handle(hookrelay.Destination{Name: "orders", Sources: []string{"stripe"}, Types: []string{"checkout.session.completed"}}, nothing)
	r.Handle(hookrelay.Destination{Name: "ci", Sources: []string{"github"}, Types: []string{"push", "pull_request"}}, nothing)

	for _, tt := range []struct {
		source, typ string
		want        []string
	}{
		{"stripe", "invoice.paid", []string{"audit", "billing"}},
		{"stripe", "checkout.session.completed", []string{"audit", "orders"}},
		{"stripe", "customer.created", []string{"audit"}},
		{"github", "push", []string{"ci"}},
		{"github", "issues", nil},
		{"gitlab", "push", nil},
	} {
		got, err := hookrelaytest.Routes(r, hookrelaytest.NewEvent(tt.source, tt.typ, `{"data":{"object":{"customer":"cus_1"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %s routes to %q, want %q", tt.source, tt.typ, got, tt.want)
		}
	}
}

// TestRoutesRefusesWhatStartRefuses checks that Routes reports a
// configuration Start would refuse rather than routing on it.
func TestRoutesRefusesWhatStartRefuses(t *testing.T) {
	t.Parallel()
	r, err := hookrelay.New(hookrelay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r.Handle(hookrelay.Destination{Name: "orders", Sources: []string{"nowhere"}}, func(context.Context, hookrelay.Tx, hookrelay.Event) error { return nil })
	if got, err := hookrelaytest.Routes(r, hookrelaytest.NewEvent("nowhere", "x", "{}")); err == nil {
		t.Errorf("Routes = %q for a destination of an unknown source, want an error", got)
	}
}
