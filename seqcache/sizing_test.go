package seqcache

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// A process that draws 10 values and is killed within its first second,
// with default options, wastes 90 values: its first block and the standby
// fetched with it, MinBlock (50) values each, less the 10 it drew. (Close of
// a store that takes nothing back counts what a killed process loses.)
func TestShortLifeWaste(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.latency = 5 * time.Millisecond
		store.create("s", sequence.DefaultSpec())
		c := New(store)
		h := c.Handle("s")
		for range 10 {
			if _, err := h.Next(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(500 * time.Millisecond) // the standby block arrives; nothing more is asked
		c.Close()
		st := h.Stats()
		if st.Served != 10 || st.Reserved != 100 || st.Wasted != 90 {
			t.Errorf("served %d, reserved %d, wasted %d; want 10, 100, 90", st.Served, st.Reserved, st.Wasted)
		}
		if st.Wasted > 100 {
			t.Errorf("a process that drew 10 values wasted %d, want at most 100", st.Wasted)
		}
	})
}

// latencyStore is a fakeStore whose calls take the latencies of seq in turn
// (the last one again once seq is used up).
type latencyStore struct {
	*fakeStore
	mu  sync.Mutex // protects seq
	seq []time.Duration
}

func (l *latencyStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	l.mu.Lock()
	d := l.seq[0]
	if len(l.seq) > 1 {
		l.seq = l.seq[1:]
	}
	l.mu.Unlock()
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return sequence.Block{}, ctx.Err()
	}
	return l.fakeStore.Reserve(ctx, name, n)
}

// A process that starts cold drawing 10,000 values/s waits for the store at
// most 3 times in its first second, then never in the next 20 s, with store
// round trips of DynamoDB's median (5 ms), ten times that (its p99), and the
// simulated DynamoDB's distribution (p50 5 ms, p99 50 ms).
func TestColdStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0x5eed))
	var modelLatencies []time.Duration
	for range 200 {
		modelLatencies = append(modelLatencies, dynamoLatency(rng))
	}
	for _, tc := range []struct {
		name      string
		latencies []time.Duration
	}{
		{"5ms", []time.Duration{5 * time.Millisecond}},
		{"20ms", []time.Duration{20 * time.Millisecond}},
		{"50ms", []time.Duration{50 * time.Millisecond}},
		{"dynamodb model", modelLatencies},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := &latencyStore{fakeStore: newFakeStore(), seq: tc.latencies}
				store.create("s", sequence.DefaultSpec())
				c := New(store)
				defer c.Close()
				h := c.Handle("s")
				draw(t, h, 10_000, time.Second, nil)
				first := h.Stats()
				if first.Waits > 3 {
					t.Errorf("%d calls waited for the store in the first second, want at most 3", first.Waits)
				}
				blocked := draw(t, h, 10_000, 20*time.Second, nil)
				if st := h.Stats(); blocked != 0 || st.Waits != first.Waits {
					t.Errorf("%d more calls waited after the first second, want none", st.Waits-first.Waits)
				}
				calls, blocks := store.stats()
				sizes := make([]int64, 0, 8)
				for _, b := range blocks[:min(8, len(blocks))] {
					sizes = append(sizes, b.Count)
				}
				t.Logf("%d waits in the first second; %d store calls in 21 s; first blocks %v", first.Waits, calls, sizes)
			})
		})
	}
}

// At a steady 10,000 values/s, after a minute, every store write brings at
// least 10,000 values: at most 100 writes per million values.
func TestSteadyValuesPerWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.latency = 5 * time.Millisecond
		store.create("s", sequence.DefaultSpec())
		c := New(store)
		defer c.Close()
		h := c.Handle("s")
		draw(t, h, 10_000, time.Minute, nil)
		calls0, _ := store.stats()
		served0 := h.Stats().Served
		draw(t, h, 10_000, 100*time.Second, nil)
		calls, _ := store.stats()
		writes, values := int64(calls-calls0), h.Stats().Served-served0
		perMillion := float64(writes) * 1e6 / float64(values)
		if writes == 0 || values/writes < 10_000 {
			t.Errorf("%d values in %d store writes (%.0f writes per million values), want at least 10,000 values per write", values, writes, perMillion)
		}
		t.Logf("steady 10,000 values/s: %d values in %d store writes, %.0f writes per million values", values, writes, perMillion)
	})
}

// throttleStore is a fakeStore that refuses calls with a throttling error
// while throttling is set, after its latency, as DynamoDB does.
type throttleStore struct {
	*fakeStore
	mu         sync.Mutex // protects throttling and refused
	throttling bool
	refused    int
}

var errThrottledCall = errors.New("ThrottlingException: rate of requests exceeds the allowed throughput")

func (s *throttleStore) setThrottling(on bool) {
	s.mu.Lock()
	s.throttling = on
	s.mu.Unlock()
}

func (s *throttleStore) refusedCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

func (s *throttleStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	s.mu.Lock()
	on := s.throttling
	if on {
		s.refused++
	}
	s.mu.Unlock()
	if on {
		time.Sleep(s.latency)
		return sequence.Block{}, sequence.Throttled(fmt.Errorf("fakestore: reserve %s: %w", name, errThrottledCall))
	}
	return s.fakeStore.Reserve(ctx, name, n)
}

// drawCoarse takes values at perSecond for d, in batches every 100 ms, and
// fails the test on an error: for long spans of simulated time.
func drawCoarse(t *testing.T, h *Handle, perSecond int, d time.Duration, _ map[int64]bool) {
	t.Helper()
	const tick = 100 * time.Millisecond
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(tick) {
		for range perSecond / 10 {
			if _, err := h.Next(context.Background()); err != nil {
				t.Fatalf("Next: %v", err)
			}
		}
	}
}

// A throttled store doubles the span a block covers, once per refill,
// bounded by 64 Samples; blocks grow with it; the store's refusals cost no
// caller a value (the buffer covers the retries); and once the store has not
// throttled for the calm time (10 to 15 minutes), the span halves, back down
// to one Sample.
func TestThrottleSpan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &throttleStore{fakeStore: newFakeStore()}
		store.latency = 5 * time.Millisecond
		store.create("s", sequence.DefaultSpec())
		c := New(store)
		defer c.Close()
		h := c.Handle("s")
		const rate = 1000
		drawCoarse(t, h, rate, time.Minute, nil)
		st := h.Stats()
		if st.Span != time.Second || st.Throttled != 0 {
			t.Fatalf("before any throttling: span %v, %d throttled calls; want 1s, 0", st.Span, st.Throttled)
		}
		waits := st.Waits

		// Each throttled refill doubles the span once, however often it is
		// retried: 10 times over, throttle every call from before a refill
		// until 2 s after it was first refused.
		var spans []time.Duration
		for range 10 {
			store.setThrottling(true)
			for before := store.refusedCalls(); store.refusedCalls() == before; {
				drawCoarse(t, h, rate, time.Second, nil)
			}
			drawCoarse(t, h, rate, 2*time.Second, nil)
			store.setThrottling(false)
			drawCoarse(t, h, rate, 20*time.Second, nil)
			spans = append(spans, h.Stats().Span)
		}
		want := []time.Duration{2, 4, 8, 16, 32, 64, 64, 64, 64, 64}
		for i := range want {
			want[i] *= time.Second
		}
		if fmt.Sprint(spans) != fmt.Sprint(want) {
			t.Errorf("spans after each throttled episode %v, want %v", spans, want)
		}
		st = h.Stats()
		if st.Waits != waits {
			t.Errorf("%d calls waited while the store throttled, want none", st.Waits-waits)
		}
		_, blocks := store.stats()
		if last := blocks[len(blocks)-1].Count; last < 64*rate {
			t.Errorf("last block %d values with a span of 64s at %d values/s, want at least %d", last, rate, 64*rate)
		}

		// Quiet: the span halves every 10 to 15 minutes, down to 1 s.
		drawCoarse(t, h, rate, 9*time.Minute, nil)
		if got := h.Stats().Span; got != 64*time.Second {
			t.Errorf("span %v after 9 quiet minutes, want still 64s", got)
		}
		drawCoarse(t, h, rate, 7*time.Minute, nil)
		if got := h.Stats().Span; got != 32*time.Second {
			t.Errorf("span %v after 16 quiet minutes, want 32s", got)
		}
		drawCoarse(t, h, rate, 6*15*time.Minute, nil)
		if got := h.Stats().Span; got != time.Second {
			t.Errorf("span %v after 106 quiet minutes, want 1s", got)
		}
		if st := h.Stats(); st.Waits != waits {
			t.Errorf("%d calls waited, want none", st.Waits-waits)
		}
		t.Logf("spans %v; %d throttled calls", spans, h.Stats().Throttled)
	})
}

func TestValuesBetween(t *testing.T) {
	for _, tt := range []struct {
		name   string
		a, b   sequence.Block
		want   int64
		wantOK bool
	}{
		{"adjacent", sequence.Block{First: 1, Step: 1, Count: 10}, sequence.Block{First: 11, Step: 1, Count: 10}, 0, true},
		{"others between", sequence.Block{First: 1, Step: 1, Count: 10}, sequence.Block{First: 111, Step: 1, Count: 10}, 100, true},
		{"increment 3", sequence.Block{First: 1, Step: 3, Count: 10}, sequence.Block{First: 1 + 3*30, Step: 3, Count: 5}, 20, true},
		{"descending", sequence.Block{First: -1, Step: -1, Count: 10}, sequence.Block{First: -61, Step: -1, Count: 10}, 50, true},
		{"wrapped (CYCLE) or set back", sequence.Block{First: 100, Step: 1, Count: 10}, sequence.Block{First: 1, Step: 1, Count: 10}, 0, false},
		{"increment changed", sequence.Block{First: 1, Step: 1, Count: 10}, sequence.Block{First: 21, Step: 2, Count: 10}, 0, false},
		{"off the grid (setval)", sequence.Block{First: 1, Step: 2, Count: 10}, sequence.Block{First: 40, Step: 2, Count: 10}, 0, false},
		{"no block before", sequence.Block{}, sequence.Block{First: 1, Step: 1, Count: 10}, 0, false},
		{"whole range", sequence.Block{First: math.MinInt64, Step: 1, Count: 1}, sequence.Block{First: math.MaxInt64, Step: 1, Count: 1}, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := valuesBetween(tt.a, tt.b)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("valuesBetween(%+v, %+v) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// othersStore is a fakeStore where other processes reserve othersPerSec
// values a second, in blocks of othersBlock, between this process's calls.
type othersStore struct {
	*fakeStore
	othersPerSec, othersBlock int64
	mu                        sync.Mutex // protects last and owed
	last                      time.Time
	owed                      float64
}

func (o *othersStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	o.mu.Lock()
	now := time.Now()
	if !o.last.IsZero() {
		o.owed += now.Sub(o.last).Seconds() * float64(o.othersPerSec)
	}
	o.last = now
	var others int64
	for ; o.owed >= float64(o.othersBlock); o.owed -= float64(o.othersBlock) {
		others++
	}
	o.mu.Unlock()
	o.fakeStore.mu.Lock()
	seq := o.fakeStore.seqs[name]
	for range others { // the others' reservations, answered at once
		_, pos, err := seq.spec.Reserve(name, seq.pos, o.othersBlock)
		if err != nil {
			o.fakeStore.mu.Unlock()
			return sequence.Block{}, err
		}
		seq.pos = pos
	}
	o.fakeStore.mu.Unlock()
	return o.fakeStore.Reserve(ctx, name, n)
}

// A process drawing 1,000 values/s among others drawing 5,000,000 values/s
// in all asks for blocks of at least 1/500 s of the fleet's consumption
// (10,000 values, times the jitter), not one second of its own (1,000): the
// fleet's writes stay bounded however many processes share the sequence.
// Alone, the same process asks for about a second of its own.
func TestFleetFloor(t *testing.T) {
	for _, tc := range []struct {
		name     string
		others   int64
		min, max int64 // bounds of the blocks asked after the first minute
	}{
		{"alone", 0, 1000, 1600},
		{"in a fleet", 5_000_000, 10_000, 15_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := &othersStore{fakeStore: newFakeStore(), othersPerSec: tc.others, othersBlock: 20_000}
				store.latency = 5 * time.Millisecond
				store.create("s", sequence.DefaultSpec())
				c := New(store)
				defer c.Close()
				h := c.Handle("s")
				drawCoarse(t, h, 1000, time.Minute, nil)
				mine := func() []int64 {
					var sizes []int64
					_, blocks := store.stats()
					for _, b := range blocks {
						sizes = append(sizes, b.Count)
					}
					return sizes
				}
				before := len(mine())
				drawCoarse(t, h, 1000, 2*time.Minute, nil)
				sizes := mine()[before:]
				if len(sizes) == 0 {
					t.Fatal("no block asked in two minutes")
				}
				for _, n := range sizes {
					// The bounds are those of the jitter, ×[1.1, 1.4), widened
					// for a rate read a little off: drawCoarse draws every
					// 100ms, so a block of about 1,200 values used up over 11
					// or 12 ticks can read up to a tick (~9%) fast.
					if n < tc.min || n > tc.max {
						t.Errorf("blocks asked %v, want each in [%d, %d]", sizes, tc.min, tc.max)
						break
					}
				}
				t.Logf("blocks asked in two minutes: %v", sizes)
			})
		})
	}
}
