package receiver_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestReplayedSignatureConcurrent posts one GitHub body and signature under
// many delivery ids at once: exactly one is stored, however the posts
// interleave with the group commit, and the others are refused with 409.
func TestReplayedSignatureConcurrent(t *testing.T) {
	t.Parallel()
	const posts = 24
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			body := []byte(`{"ref":"refs/heads/main","after":"5d1c"}`)
			var (
				mu       sync.Mutex
				statuses = map[int]int{}
				wg       sync.WaitGroup
			)
			for i := range posts {
				wg.Go(func() {
					resp, _ := do(t, signedGitHub(t, b.url+"/webhooks/github", fmt.Sprintf("delivery-%d", i), body))
					mu.Lock()
					statuses[resp.StatusCode]++
					mu.Unlock()
				})
			}
			wg.Wait()
			if statuses[200] != 1 || statuses[409] != posts-1 {
				t.Errorf("answers %v, want one 200 and %d 409", statuses, posts-1)
			}
			if n := storedEventCount(t, b.store); n != 1 {
				t.Errorf("stored %d events, want 1", n)
			}
		})
	}
}
