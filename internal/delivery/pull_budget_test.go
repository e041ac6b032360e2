package delivery

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestClaimRows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		asked             int
		perBody, answered int64
		want              int
	}{
		{100, 1 << 20, 0, claimAnswerBytes >> 20},
		{10, 1 << 20, 0, 10},
		{100, 1 << 10, 0, 100},
		{100, 64 << 20, 0, 0}, // larger than an answer: the caller claims one alone
		{100, 1 << 20, claimAnswerBytes - 1<<20, 1},
		{100, 1 << 20, claimAnswerBytes, 0},
	} {
		if got := claimRows(tc.asked, tc.perBody, tc.answered); got != tc.want {
			t.Errorf("claimRows(%d, %d, %d) = %d, want %d", tc.asked, tc.perBody, tc.answered, got, tc.want)
		}
	}
}

func TestByteBudget(t *testing.T) {
	t.Parallel()
	b := newByteBudget(100)
	if n, err := b.take(context.Background(), 500); n != 100 || err != nil {
		t.Fatalf("take beyond the size = %d, %v; want the whole budget", n, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if n, err := b.take(ctx, 1); n != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("take from a spent budget = %d, %v; want to wait until the context ends", n, err)
	}
	if n := b.tryTake(10); n != 0 {
		t.Errorf("tryTake from a spent budget = %d", n)
	}
	got := make(chan int64)
	go func() {
		n, _ := b.take(context.Background(), 30)
		got <- n
	}()
	b.give(40)
	if n := <-got; n != 30 {
		t.Errorf("take after give = %d, want 30", n)
	}
	if n := b.tryTake(50); n != 10 {
		t.Errorf("tryTake of 50 with 10 free = %d", n)
	}
	b.force(25)
	if b.inUse() != 125 {
		t.Errorf("in use after force = %d, want 125", b.inUse())
	}
}
