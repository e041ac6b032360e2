package e2e

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// quickstartGuides are the pages whose runnable blocks a reader follows
// from a fresh clone.
var quickstartGuides = []string{"../README.md", "../docs/getting-started.md"}

// TestDocsQuickstart runs the README's quickstart and the getting-started
// guide as written (see docs_blocks_test.go for how a guide marks what
// runs and what it promises), on SQLite as the guides do and again on a
// PostgreSQL database in place of theirs. Every command must exit 0 and
// print what the guide shows below it; before the relay is stopped, the
// console the guides point at must let the generated admin token in and
// list the event the guide sent.
func TestDocsQuickstart(t *testing.T) {
	t.Parallel()
	for _, guide := range quickstartGuides {
		blocks := readDocBlocks(t, guide)
		shells := 0
		for _, b := range blocks {
			if b.lang == "sh" {
				shells++
			}
		}
		if shells == 0 {
			t.Fatalf("%s has no ```sh run block", guide)
		}
		for _, driver := range testdb.Drivers() {
			name := strings.TrimSuffix(strings.TrimPrefix(guide, "../"), ".md") + "/" + driver.Name
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				database := ""
				if driver.Name != "sqlite" {
					database = driver.URL(t)
				}
				s := newDocSession(t, database)
				checked := false
				s.beforeStop = func() {
					checked = true
					s.checkConsole()
				}
				s.run(guide, blocks)
				if !checked {
					s.checkConsole()
				}
				s.finish()
			})
		}
	}
}

// csrfInput is the login form's CSRF field.
var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// checkConsole logs in to the console with the generated admin token, as
// the guides say, and finds the example event on the events page.
func (s *docSession) checkConsole() {
	s.t.Helper()
	token, err := s.adminToken()
	if err != nil {
		s.t.Fatal(err)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		s.t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	base := "http://" + s.admin
	login := s.get(client, base+"/")
	m := csrfInput.FindStringSubmatch(login)
	if m == nil || !strings.Contains(login, `name="token"`) {
		s.t.Fatalf("console %s/: no login form:\n%s", base, login)
	}
	resp, err := client.PostForm(base+"/login", url.Values{"csrf": {m[1]}, "token": {token}})
	if err != nil {
		s.t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/" {
		s.t.Fatalf("console log in with the generated token: %s at %s", resp.Status, resp.Request.URL)
	}
	if page := s.get(client, base+"/events"); !strings.Contains(page, "evt_1QExample000000000000001") {
		s.t.Fatalf("console /events does not list the example event:\n%s", page)
	}
}

// get fetches url with client and returns the body of its 200 answer.
func (s *docSession) get(client *http.Client, url string) string {
	s.t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET %s: %s\n%s", url, resp.Status, b)
	}
	return string(b)
}
