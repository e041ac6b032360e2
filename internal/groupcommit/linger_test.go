package groupcommit_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/groupcommit"
)

// batches is a WriteFunc that keeps every batch it is given and answers
// each item with itself.
type batches struct {
	mu      sync.Mutex
	written [][]int
}

func (b *batches) write(_ context.Context, items []int) ([]int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.written = append(b.written, slices.Clone(items))
	return items, nil
}

func (b *batches) all() [][]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.written)
}

// startBatcher starts a Batcher of opts writing to a new batches, closed
// when the test ends.
func startBatcher(t *testing.T, opts groupcommit.Options) (*groupcommit.Batcher[int, int], *batches) {
	t.Helper()
	log := &batches{}
	b := groupcommit.NewBatcher(log.write, nil, opts, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(b.Close)
	return b, log
}

// submit queues item and returns a channel that receives its answer.
func submit(t *testing.T, b *groupcommit.Batcher[int, int], item int, now bool) <-chan int {
	t.Helper()
	answered := make(chan int, 1)
	notify := func(res int, err error) {
		if err != nil {
			t.Errorf("item %d: %v", item, err)
		}
		answered <- res
	}
	submitFunc := b.Submit
	if now {
		submitFunc = b.SubmitNow
	}
	if err := submitFunc(item, notify); err != nil {
		t.Fatalf("submit %d: %v", item, err)
	}
	return answered
}

// answer waits for one answer, failing the test after 10 s.
func answer(t *testing.T, ch <-chan int) int {
	t.Helper()
	select {
	case res := <-ch:
		return res
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s")
		return 0
	}
}

// TestLingerGathersOneBatch submits items one at a time to a committer
// that lingers longer than the test: the first waits for company, and
// all are written together once the batch is full.
func TestLingerGathersOneBatch(t *testing.T) {
	t.Parallel()
	b, log := startBatcher(t, groupcommit.Options{Linger: time.Hour, MaxBatch: 3, Committers: 2})
	first := submit(t, b, 1, false)
	time.Sleep(50 * time.Millisecond)
	if got := log.all(); len(got) != 0 {
		t.Fatalf("written before the batch was full: %v", got)
	}
	second, third := submit(t, b, 2, false), submit(t, b, 3, false)
	for i, ch := range []<-chan int{first, second, third} {
		if res := answer(t, ch); res != i+1 {
			t.Errorf("item %d answered %d", i+1, res)
		}
	}
	if got := log.all(); len(got) != 1 || !slices.Equal(got[0], []int{1, 2, 3}) {
		t.Errorf("batches %v, want one of [1 2 3]", got)
	}
}

// TestLingerEnds checks that a lone item is written once the linger has
// passed, without company.
func TestLingerEnds(t *testing.T) {
	t.Parallel()
	b, log := startBatcher(t, groupcommit.Options{Linger: 20 * time.Millisecond})
	start := time.Now()
	answer(t, submit(t, b, 7, false))
	if took := time.Since(start); took < 20*time.Millisecond {
		t.Errorf("written after %v, before the linger of 20ms", took)
	}
	if got := log.all(); len(got) != 1 || !slices.Equal(got[0], []int{7}) {
		t.Errorf("batches %v, want [[7]]", got)
	}
}

// TestSubmitNowEndsLinger checks that an item submitted with SubmitNow
// has its batch written at once, taking the items lingering before it.
func TestSubmitNowEndsLinger(t *testing.T) {
	t.Parallel()
	b, log := startBatcher(t, groupcommit.Options{Linger: time.Hour})
	waiting := submit(t, b, 1, false)
	time.Sleep(20 * time.Millisecond)
	urgent := submit(t, b, 2, true)
	answer(t, urgent)
	answer(t, waiting)
	if got := log.all(); len(got) != 1 || !slices.Equal(got[0], []int{1, 2}) {
		t.Errorf("batches %v, want [[1 2]]", got)
	}
	answer(t, submit(t, b, 3, true))
}

// TestCloseWritesLingeringItems checks that Close does not wait out the
// linger and loses nothing.
func TestCloseWritesLingeringItems(t *testing.T) {
	t.Parallel()
	log := &batches{}
	b := groupcommit.NewBatcher(log.write, nil, groupcommit.Options{Linger: time.Hour}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	done := submit(t, b, 1, false)
	closed := make(chan struct{})
	go func() { b.Close(); close(closed) }()
	answer(t, done)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the linger")
	}
	if got := log.all(); len(got) != 1 || !slices.Equal(got[0], []int{1}) {
		t.Errorf("batches %v, want [[1]]", got)
	}
}

// TestLingerWhenBusyWriting checks that with LingerWhenBusy an item that
// finds every committer idle is written at once, and one that arrives
// while another batch is being written waits for company.
func TestLingerWhenBusyWriting(t *testing.T) {
	t.Parallel()
	log := &batches{}
	started, release := make(chan struct{}), make(chan struct{})
	write := func(ctx context.Context, items []int) ([]int, error) {
		if items[0] == 2 {
			close(started)
			<-release // the store is busy with this batch until released
		}
		return log.write(ctx, items)
	}
	b := groupcommit.NewBatcher(write, nil, groupcommit.Options{Linger: time.Hour, LingerWhenBusy: true, MaxBatch: 3, Committers: 2},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(b.Close)
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })

	answer(t, submit(t, b, 1, false)) // idle: no linger, or this waits an hour
	busy := submit(t, b, 2, false)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the second batch was not written within 10s")
	}
	third := submit(t, b, 3, false)
	time.Sleep(50 * time.Millisecond)
	if got := log.all(); len(got) != 1 {
		t.Fatalf("batches %v while one was being written, want [[1]] and the next lingering", got)
	}
	fourth, fifth := submit(t, b, 4, false), submit(t, b, 5, false)
	for _, ch := range []<-chan int{third, fourth, fifth} {
		answer(t, ch)
	}
	once.Do(func() { close(release) })
	answer(t, busy)
	want := [][]int{{1}, {3, 4, 5}, {2}}
	if got := log.all(); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
		t.Errorf("batches %v, want %v", got, want)
	}
}

// TestLingerWhenBusyRecent checks that with LingerWhenBusy and BusyWithin
// an item that comes within BusyWithin of the previous batch waits for
// company though no committer is writing, and one that comes later, to an
// idle store, is written at once.
func TestLingerWhenBusyRecent(t *testing.T) {
	t.Parallel()
	t.Run("within", func(t *testing.T) {
		t.Parallel()
		b, log := startBatcher(t, groupcommit.Options{Linger: time.Hour, LingerWhenBusy: true, BusyWithin: time.Hour, MaxBatch: 2})
		answer(t, submit(t, b, 1, false)) // the first batch ever: idle, no linger, or this waits an hour
		second := submit(t, b, 2, false)
		time.Sleep(50 * time.Millisecond)
		if got := log.all(); len(got) != 1 {
			t.Fatalf("batches %v: an item that came right after a batch, with no committer writing, was written without lingering", got)
		}
		third := submit(t, b, 3, false)
		answer(t, second)
		answer(t, third)
		want := [][]int{{1}, {2, 3}}
		if got := log.all(); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
			t.Errorf("batches %v, want %v", got, want)
		}
	})
	t.Run("after", func(t *testing.T) {
		t.Parallel()
		b, log := startBatcher(t, groupcommit.Options{Linger: time.Hour, LingerWhenBusy: true, BusyWithin: 20 * time.Millisecond, MaxBatch: 2})
		answer(t, submit(t, b, 1, false))
		time.Sleep(50 * time.Millisecond) // past BusyWithin: the store is idle again
		answer(t, submit(t, b, 2, false)) // or this waits an hour
		want := [][]int{{1}, {2}}
		if got := log.all(); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
			t.Errorf("batches %v, want %v", got, want)
		}
	})
}
