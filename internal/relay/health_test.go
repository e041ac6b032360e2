package relay

import (
	"errors"
	"testing"
	"time"
)

func TestCommitHealth(t *testing.T) {
	t.Parallel()
	var h commitHealth
	t0 := time.Now()
	if h.failing(t0) {
		t.Fatal("failing before any commit")
	}
	h.observe(errors.New("disk full"), t0)
	if !h.failing(t0.Add(time.Second)) {
		t.Error("not failing right after a failed commit")
	}
	if h.failing(t0.Add(failingFor + time.Second)) {
		t.Error("still failing long after the failure, with no commit since")
	}
	h.observe(nil, t0.Add(2*time.Second))
	if h.failing(t0.Add(3 * time.Second)) {
		t.Error("failing after a successful commit")
	}
}
