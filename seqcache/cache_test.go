package seqcache

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

func newTestCache(t *testing.T, store sequence.Reserver, optFns ...func(*Options)) *Cache {
	t.Helper()
	c := New(store, optFns...)
	t.Cleanup(func() { c.Close() })
	return c
}

// draw takes values at a steady rate for d, in batches every millisecond,
// and returns how many Next calls had to wait (time passed during the call)
// after the first one.
func draw(t *testing.T, h *Handle, perSecond int, d time.Duration, seen map[int64]bool) (blockedAfterFirst int) {
	t.Helper()
	ctx := context.Background()
	perMs := perSecond / 1000
	first := true
	for end := time.Now().Add(d); time.Now().Before(end); {
		for range perMs {
			start := time.Now()
			v, err := h.Next(ctx)
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if time.Since(start) > 0 && !first {
				blockedAfterFirst++
			}
			first = false
			if seen != nil {
				if seen[v] {
					t.Fatalf("duplicate value %d", v)
				}
				seen[v] = true
			}
		}
		time.Sleep(time.Millisecond)
	}
	return blockedAfterFirst
}

// At a steady 10,000 values/s with 50 ms store latency, a cold cache waits
// for the store at most 3 times, all in its first second (its first blocks
// are small: see TestColdStart), and never after; blocks hold at least 1,000
// values.
func TestCacheSteadyRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.latency = 50 * time.Millisecond
		store.create("s", sequence.DefaultSpec())
		c := New(store)
		defer c.Close()
		h := c.Handle("s")

		seen := map[int64]bool{}
		draw(t, h, 10_000, time.Second, seen)
		if w := h.Stats().Waits; w > 3 {
			t.Errorf("%d calls waited for a block in the first second, want at most 3", w)
		}
		coldWaits := h.Stats().Waits
		blocked := draw(t, h, 10_000, 99*time.Second, seen)
		st := h.Stats()
		if blocked != 0 {
			t.Errorf("%d calls waited for a refill after the first block", blocked)
		}
		if st.Waits != coldWaits {
			t.Errorf("Waits = %d after the first second, want %d (those of the first second)", st.Waits, coldWaits)
		}
		perReservation := st.Reserved / st.Reservations
		if perReservation < 1000 {
			t.Errorf("%d values per reservation, want at least 1000", perReservation)
		}
		if st.Served != int64(len(seen)) {
			t.Errorf("Served = %d, drew %d", st.Served, len(seen))
		}
		if st.Rate < 9000 || st.Rate > 11000 {
			t.Errorf("Rate = %.0f, want about 10000", st.Rate)
		}
		t.Logf("served %d in %d reservations (%d values each, %.1f store writes per 1,000,000 values), depth %d, rate %.0f/s",
			st.Served, st.Reservations, perReservation, float64(st.Reservations)*1e6/float64(st.Served), st.Depth, st.Rate)
	})
}

// With the store down, a warmed cache serves at the observed rate for at
// least Buffer, then fails clearly within MaxWait, and recovers by itself.
func TestCacheStoreDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.latency = 5 * time.Millisecond
		store.create("s", sequence.DefaultSpec())
		c := New(store)
		defer c.Close()
		h := c.Handle("s")
		opts := c.Options()
		draw(t, h, 2000, 70*time.Second, nil)

		store.setDown(true)
		down := time.Now()
		ctx := context.Background()
		// The cache holds about Buffer of values at 2000/s (the threshold
		// plus at most one block); three times that is ample, and ends the
		// loop if the cache never runs dry.
		deadline := down.Add(3 * opts.Buffer)
		var err error
		for err == nil {
			if time.Now().After(deadline) {
				t.Fatalf("still serving %v after the store went down, with a buffer of %v", time.Since(down), opts.Buffer)
			}
			for range 2 {
				if _, err = h.Next(ctx); err != nil {
					break
				}
			}
			time.Sleep(time.Millisecond)
		}
		served := time.Since(down)
		if served < opts.Buffer {
			t.Errorf("served %v after the store went down, want at least Buffer %v", served, opts.Buffer)
		}
		if !errors.Is(err, ErrUnavailable) || !errors.Is(err, errDown) {
			t.Errorf("err = %v, want ErrUnavailable wrapping the store's error", err)
		}
		start := time.Now()
		_, err = h.Next(ctx)
		if waited := time.Since(start); err == nil || waited > opts.MaxWait {
			t.Errorf("Next with nothing cached: %v after %v, want an error within %v", err, waited, opts.MaxWait)
		}
		t.Logf("served %v after the store went down; then %v", served, err)

		store.setDown(false)
		if _, err := h.Next(ctx); err != nil {
			t.Fatalf("after the store came back: %v", err)
		}
		draw(t, h, 2000, time.Second, nil)
	})
}

func TestCacheConcurrent(t *testing.T) {
	store := newFakeStore()
	store.latency = 100 * time.Microsecond
	store.create("s", sequence.DefaultSpec())
	c := newTestCache(t, store, func(o *Options) { o.MinBlock, o.MaxBlock = 10, 50 })
	const goroutines, each = 64, 2000
	results := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			h := c.Handle("s")
			vals := make([]int64, 0, each)
			for range each {
				v, err := h.Next(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				vals = append(vals, v)
			}
			results[g] = vals
		})
	}
	wg.Wait()
	seen := make(map[int64]bool, goroutines*each)
	for g, vals := range results {
		for i, v := range vals {
			if seen[v] {
				t.Fatalf("value %d handed out twice", v)
			}
			seen[v] = true
			if i > 0 && v <= vals[i-1] {
				t.Fatalf("goroutine %d: %d after %d", g, v, vals[i-1])
			}
		}
	}
	if st := c.Stats("s"); st.Served != goroutines*each {
		t.Fatalf("Served = %d, want %d", st.Served, goroutines*each)
	}
}

// Every block comes from the store, and at most one store call per sequence
// is in flight.
func TestCacheOneRefillInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &countingStore{fakeStore: newFakeStore()}
		store.latency = 20 * time.Millisecond
		store.create("s", sequence.DefaultSpec())
		// 16 callers want 16 values a millisecond, the store gives 5 per
		// 20 ms: a caller may wait its turn longer than the default MaxWait
		// (which this test is not about).
		c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock, o.MaxWait = 5, 5, time.Minute })
		defer c.Close()
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				for range 100 {
					if _, err := c.Next(context.Background(), "s"); err != nil {
						t.Error(err)
						return
					}
					time.Sleep(time.Millisecond)
				}
			})
		}
		wg.Wait()
		c.Close()
		if store.maxInFlight != 1 {
			t.Fatalf("max store calls in flight = %d, want 1", store.maxInFlight)
		}
	})
}

type countingStore struct {
	*fakeStore
	mu                    sync.Mutex // protects inFlight and maxInFlight
	inFlight, maxInFlight int
}

func (s *countingStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	return s.fakeStore.Reserve(ctx, name, n)
}

func TestCacheLimitAndCycle(t *testing.T) {
	store := newFakeStore()
	store.create("lim", mustSpec(t, sequence.Clauses{MaxValue: sequence.Int64(10)}))
	store.create("cyc", mustSpec(t, sequence.Clauses{MaxValue: sequence.Int64(3), Cycle: sequence.Bool(true)}))
	c := newTestCache(t, store, func(o *Options) { o.MinBlock = 4 })
	ctx := context.Background()
	for want := int64(1); want <= 10; want++ {
		if v, err := c.Next(ctx, "lim"); err != nil || v != want {
			t.Fatalf("Next = %d, %v; want %d", v, err, want)
		}
	}
	for range 3 {
		_, err := c.Next(ctx, "lim")
		if err == nil || err.Error() != `nextval: reached maximum value of sequence "lim" (10)` || !errors.Is(err, sequence.ErrLimit) {
			t.Fatalf("Next past MAXVALUE: %v", err)
		}
	}
	var got []int64
	for range 7 {
		v, err := c.Next(ctx, "cyc")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	want := []int64{1, 2, 3, 1, 2, 3, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cycle gave %v, want %v", got, want)
		}
	}
}

func TestCacheNotFound(t *testing.T) {
	c := newTestCache(t, newFakeStore())
	_, err := c.Next(context.Background(), "nope")
	if !errors.Is(err, sequence.ErrNotFound) || err.Error() != `relation "nope" does not exist` {
		t.Fatalf("err = %v", err)
	}
}

// Invalidate after this process re-creates a sequence that another process
// dropped: the values cached for the old sequence are dropped, and the next
// value is the new sequence's first.
func TestCacheInvalidate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.create("s", sequence.DefaultSpec())
		c := New(store)
		defer c.Close()
		ctx := context.Background()
		if v, _ := c.Next(ctx, "s"); v != 1 {
			t.Fatalf("first value %d", v)
		}
		synctest.Wait()                           // the standby block of the old sequence has arrived
		store.create("s", sequence.DefaultSpec()) // DROP elsewhere, then CREATE here
		if v, _ := c.Next(ctx, "s"); v != 2 {
			t.Fatalf("before Invalidate the cached block serves: got %d, want 2", v)
		}
		c.Invalidate("s")
		if v, err := c.Next(ctx, "s"); err != nil || v != 1 {
			t.Fatalf("after CREATE and Invalidate: %d, %v; want 1, the new sequence's first value", v, err)
		}
		if st := c.Stats("s"); st.Wasted == 0 {
			t.Fatalf("Stats = %+v: the dropped values are not counted as wasted", st)
		}
	})
}

// Change makes a store change by this process take effect exactly: the next
// value is the one PostgreSQL would give, even with a refill in flight.
func TestCacheChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.latency = 10 * time.Millisecond
		store.create("s", sequence.DefaultSpec())
		c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock = 3, 3 })
		defer c.Close()
		ctx := context.Background()
		for i := int64(1); i <= 100; i++ {
			if i%7 == 0 {
				setTo := i * 1000
				err := c.Change(ctx, "s", func(context.Context) error {
					store.setval("s", setTo, true)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if v, err := c.Next(ctx, "s"); err != nil || v != setTo+1 {
					t.Fatalf("after setval(%d): %d, %v", setTo, v, err)
				}
			}
			if _, err := c.Next(ctx, "s"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond) // let the prefetch of the next block start
		}
		wantErr := errors.New("store said no")
		if err := c.Change(ctx, "s", func(context.Context) error { return wantErr }); err != wantErr {
			t.Fatalf("Change returned %v, want fn's error", err)
		}
		if _, err := c.Next(ctx, "s"); err != nil {
			t.Fatalf("Next after a failed Change: %v", err)
		}
	})
}

func TestCacheCloseReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := releasingStore{newFakeStore()}
		store.create("s", sequence.DefaultSpec())
		c := New(store)
		ctx := context.Background()
		for want := int64(1); want <= 5; want++ {
			if v, err := c.Next(ctx, "s"); err != nil || v != want {
				t.Fatalf("Next = %d, %v", v, err)
			}
		}
		// Let the standby block arrive, so two blocks are handed back.
		synctest.Wait()
		if n := c.Stats("s").Reservations; n != 2 {
			t.Fatalf("%d reservations once the refills ended, want 2 (the active block and a standby)", n)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if pos := store.position("s"); pos != (sequence.Position{Last: 5, Called: true}) {
			t.Fatalf("position after Close = %+v, want next value 6", pos)
		}
		st := c.Stats("s")
		if st.Released != st.Reserved-5 || st.Wasted != 0 {
			t.Fatalf("Stats = %+v", st)
		}
		if _, err := c.Next(ctx, "s"); !errors.Is(err, ErrClosed) {
			t.Fatalf("Next after Close: %v", err)
		}
		if _, err := c.Next(ctx, "other"); !errors.Is(err, ErrClosed) {
			t.Fatalf("Next of a new name after Close: %v", err)
		}
	})
}

func TestCacheWaitBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.latency = time.Hour
		store.create("s", sequence.DefaultSpec())
		c := New(store, func(o *Options) { o.MaxWait = 2 * time.Second })
		defer c.Close()

		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.Next(ctx, "s")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 100*time.Millisecond {
			t.Fatalf("with a caller deadline: %v after %v", err, time.Since(start))
		}
		start = time.Now()
		_, err = c.Next(context.Background(), "s")
		if !errors.Is(err, ErrUnavailable) || time.Since(start) != 2*time.Second {
			t.Fatalf("with MaxWait: %v after %v", err, time.Since(start))
		}
	})
}

func TestCacheTransientFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.latency = time.Millisecond
		store.failNext = 3
		store.create("s", sequence.DefaultSpec())
		c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock = 10, 10 })
		defer c.Close()
		seen := map[int64]bool{}
		draw(t, c.Handle("s"), 1000, 2*time.Second, seen)
		st := c.Stats("s")
		if st.StoreErrors != 3 {
			t.Fatalf("StoreErrors = %d, want 3", st.StoreErrors)
		}
		_, blocks := store.stats()
		var reserved int64
		for _, b := range blocks {
			reserved += b.Count
		}
		if reserved != st.Reserved || st.Served+st.Depth != reserved {
			t.Fatalf("store handed out %d, stats %+v", reserved, st)
		}
	})
}

// The first Next of a handle waits for a block; once the store answered, the
// cache holds that block and one standby block, and asks for nothing more,
// however fast the store (a refill used to go on asking until the waiting
// caller had run: hundreds of blocks from an in-process store).
func TestCacheFirstNextFastStore(t *testing.T) {
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			store := newFakeStore() // no latency
			store.create("s", sequence.DefaultSpec())
			c := New(store)
			defer c.Close()
			if _, err := c.Next(context.Background(), "s"); err != nil {
				t.Fatal(err)
			}
			synctest.Wait() // the refills have ended
			if calls, _ := store.stats(); calls != 2 {
				t.Fatalf("%d store calls after the first Next, want 2 (the active block and a standby)", calls)
			}
		})
	}
}

// A burst drawn within a few milliseconds of the first block does not size
// the next blocks as if it went on for a second: the rate is measured over
// at least one Sample period.
func TestCacheBurstRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.create("s", sequence.DefaultSpec())
		c := New(store)
		defer c.Close()
		h := c.Handle("s")
		ctx := context.Background()
		const burst = 5000
		for i := range burst {
			if i%1000 == 0 {
				time.Sleep(time.Millisecond)
			}
			if _, err := h.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		// The first blocks grow with the rate of the last block used up, over
		// at most twice the time the process has been drawing (see
		// blockSizeLocked): a burst of 5 ms may get blocks of up to about
		// 10 ms of its rate, never the 1,000,000 values of a second.
		_, blocks := store.stats()
		for _, b := range blocks {
			if b.Count > 2*burst {
				t.Errorf("a block of %d values after a burst of %d in %v: the burst was taken for a rate of millions a second",
					b.Count, burst, 5*time.Millisecond)
				break
			}
		}
		var biggest int64
		for _, b := range blocks {
			biggest = max(biggest, b.Count)
		}
		t.Logf("largest block after a burst of %d: %d", burst, biggest)
	})
}

// misconfiguredStore fails every Reserve, after its latency, with a
// configuration error.
type misconfiguredStore struct {
	*fakeStore
	err error
}

func (m misconfiguredStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	if _, err := m.fakeStore.Reserve(ctx, name, n); err != nil {
		return sequence.Block{}, err
	}
	return sequence.Block{}, m.err
}

// A configuration error (a missing table, say) reaches the waiting caller as
// soon as the store has answered, not after MaxWait, and is not retried.
func TestCacheMisconfiguredNoWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newFakeStore()
		fake.latency = 10 * time.Millisecond
		fake.create("s", sequence.DefaultSpec())
		misconf := sequence.Misconfigured(errors.New("dynamostore: reserve s: table seqs does not exist (create it with: seqctl init)"))
		c := New(misconfiguredStore{fake, misconf}, func(o *Options) { o.MaxWait = time.Hour })
		defer c.Close()

		start := time.Now()
		_, err := c.Next(context.Background(), "s")
		if !errors.Is(err, sequence.ErrMisconfigured) || err.Error() != misconf.Error() {
			t.Fatalf("Next = %v, want the store's configuration error as it is", err)
		}
		if d := time.Since(start); d != fake.latency {
			t.Errorf("Next returned after %v, want %v (one store call, no wait for MaxWait)", d, fake.latency)
		}
		synctest.Wait()
		if calls, _ := fake.stats(); calls != 1 {
			t.Errorf("%d store calls, want 1: a configuration error is not retried", calls)
		}
	})
}
