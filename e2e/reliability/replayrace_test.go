package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// githubSecret is the github source's secret in TestReplayedSignatureAcrossRelays.
const githubSecret = "reliability-github-secret-5e0d"

// TestReplayedSignatureAcrossRelays runs two relays on one PostgreSQL
// database and, round after round, posts one signed GitHub delivery to
// both at the same moment: GitHub signs the body alone, so a captured
// request posted again under a new delivery id verifies on either relay.
// In 50 rounds the two posts carry different delivery ids: one must be
// stored and answered 200, the other answered 409 replayed_signature, and
// nothing of it stored. In 10 more rounds they carry the same delivery
// id, as GitHub's own retry racing its first post would: one stored, the
// other 200 duplicate.
func TestReplayedSignatureAcrossRelays(t *testing.T) {
	t.Parallel()
	const (
		replays = 50
		retries = 10
	)
	db := testdb.PostgresDatabaseURL(t)
	config := `sources:
  - {name: github, verify: github, secrets: ["${REL_GITHUB_SECRET}"]}
log: {level: warn}
`
	var nodes [2]*relayProcess
	for i := range nodes {
		nodes[i] = launch(t, relayproc.RelayOptions{
			Binary: binary, ConfigPath: filepath.Join(t.TempDir(), "hookrelay.yaml"), Database: db,
			Config: config, Env: []string{"REL_GITHUB_SECRET=" + githubSecret}, ReadyTimeout: 30 * time.Second,
		})
	}
	client := &http.Client{Timeout: 10 * time.Second}
	answers := map[string]int{}
	for round := range replays + retries {
		body := fmt.Appendf(nil, `{"ref":"refs/heads/main","after":"%040x"}`, round)
		ids := [2]string{fmt.Sprintf("replay-%d-a", round), fmt.Sprintf("replay-%d-b", round)}
		want := map[string]int{"200 stored": 1, "409 replayed_signature": 1}
		if round >= replays {
			ids[1] = ids[0]
			want = map[string]int{"200 stored": 1, "200 duplicate": 1}
		}
		got := postBoth(t, client, nodes, ids, body)
		for a, n := range got {
			answers[a] += n
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("round %d (%s, %s): answers %v, want %v", round, ids[0], ids[1], got, want)
		}
	}

	st := openStore(t, db)
	stored := 0
	for round := range replays + retries {
		for _, side := range []string{"a", "b"} {
			if _, err := st.EventByProviderID(t.Context(), "github", fmt.Sprintf("replay-%d-%s", round, side)); err == nil {
				stored++
			}
		}
	}
	if n, err := st.CountEvents(t.Context(), "github"); err != nil || n != replays+retries || stored != replays+retries {
		t.Errorf("%d events stored (%v), %d of the posted delivery ids found; want %d, one a round", n, err, stored, replays+retries)
	}
	t.Logf("RELIABILITY replayed-across-relays relays=2 replay_rounds=%d retry_rounds=%d answers=%v stored=%d",
		replays, retries, answers, stored)
}

// postBoth posts body, signed as GitHub signs it, to both relays at once,
// under delivery id ids[i] to nodes[i], and returns how many of each
// answer — status and the JSON's status or error — came back.
func postBoth(t *testing.T, client *http.Client, nodes [2]*relayProcess, ids [2]string, body []byte) map[string]int {
	t.Helper()
	var reqs [2]*http.Request
	for i, id := range ids {
		h, err := signature.Sign(signature.Options{Scheme: "github", Secrets: []string{githubSecret}}, 0,
			signature.Message{ID: id, Type: "push", Body: body})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		reqs[i], err = http.NewRequestWithContext(ctx, http.MethodPost, nodes[i].Relay.IngestURL("github"), bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range h {
			reqs[i].Header[k] = v
		}
	}
	var (
		start   = make(chan struct{})
		wg      sync.WaitGroup
		answers [2]string
	)
	for i, req := range reqs {
		wg.Go(func() {
			<-start
			resp, err := client.Do(req)
			if err != nil {
				answers[i] = err.Error()
				return
			}
			defer resp.Body.Close()
			text, _ := io.ReadAll(resp.Body)
			answers[i] = fmt.Sprintf("%d %s", resp.StatusCode, answerWord(text))
		})
	}
	close(start)
	wg.Wait()
	got := map[string]int{}
	for _, a := range answers {
		got[a]++
	}
	return got
}

// answerWord returns the status or error word of an ingest answer's
// JSON, or the text itself when it has neither.
func answerWord(text []byte) string {
	var a struct{ Status, Error string }
	if json.Unmarshal(text, &a) != nil || a.Status+a.Error == "" {
		return string(text)
	}
	return a.Status + a.Error
}
