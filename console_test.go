package hookrelay_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestConsoleShowsHandlerDestination logs in to the console that Admin
// serves, with the admin token, and finds the handler destination on its
// destinations page, with its done delivery.
func TestConsoleShowsHandlerDestination(t *testing.T) {
	t.Parallel()
	b := setup(t, testdb.Driver{Name: "sqlite", URL: testdb.SQLiteURL}, func(r *hookrelay.Relay) {
		r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
			return insertEffect(ctx, tx, ev, "console")
		})
	})
	b.mustPost(t, stripeEvent("evt_console", "checkout.session.completed", "ord_10", time.Now()))
	b.waitStatus(t, "evt_console", "orders", "done")

	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar}
	login := get(t, client, b.admin+"/")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(login)
	if m == nil {
		t.Fatalf("no CSRF field on the login page:\n%s", login)
	}
	resp, err := client.PostForm(b.admin+"/login", url.Values{"token": {adminToken}, "csrf": {m[1]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	page := get(t, client, b.admin+"/destinations")
	if !strings.Contains(page, "orders") || !strings.Contains(page, "handler (runs in the application") {
		t.Errorf("destinations page does not show the handler destination:\n%s", page)
	}
}

// get returns the body of a GET of u, failing the test unless it is 200.
func get(t *testing.T, client *http.Client, u string) string {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", u, resp.StatusCode)
	}
	return string(body)
}
