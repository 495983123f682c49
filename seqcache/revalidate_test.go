package seqcache

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

const testRevalidate = time.Second

// quietCache returns a cache on a store holding sequence s, with a first
// value drawn (so that s's first blocks are cached) and the refills done.
func quietCache(t *testing.T, optFns ...func(*Options)) (*fakeStore, *Cache) {
	t.Helper()
	store := newFakeStore()
	store.create("s", sequence.DefaultSpec())
	c := newTestCache(t, store, append([]func(*Options){func(o *Options) { o.Revalidate = testRevalidate }}, optFns...)...)
	if v, err := c.Next(t.Context(), "s"); err != nil || v != 1 {
		t.Fatalf("first value %d, %v", v, err)
	}
	synctest.Wait()
	return store, c
}

// After another process drops the sequence, this one hands out cached values
// for at most Revalidate, then fails with the store's 42P01.
func TestRevalidateDrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, c := quietCache(t)
		ctx := context.Background()
		inc := c.Incarnation("s")
		store.drop("s")
		time.Sleep(testRevalidate / 2)
		if v, err := c.Next(ctx, "s"); err != nil || v != 2 {
			t.Fatalf("within the bound: %d, %v; want 2 from the cached block", v, err)
		}
		time.Sleep(testRevalidate / 2)
		synctest.Wait()
		_, err := c.Next(ctx, "s")
		var se *sequence.Error
		if !errors.Is(err, sequence.ErrNotFound) || !errors.As(err, &se) || se.Code != "42P01" {
			t.Fatalf("after the bound: %v; want 42P01", err)
		}
		st := c.Stats("s")
		if st.Revalidations != 1 || st.Checks != 1 || st.Wasted == 0 || st.Depth != 0 {
			t.Errorf("Stats = %+v; want 1 check, 1 revalidation, the cached values wasted", st)
		}
		if c.Incarnation("s") == inc {
			t.Error("Incarnation unchanged after the drop was noticed: currval would still answer")
		}
	})
}

// After another process drops and creates the sequence again, this one hands
// out values of the new sequence from the bound on, never the old one's.
func TestRevalidateRecreate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, c := quietCache(t)
		ctx := context.Background()
		inc := c.Incarnation("s")
		store.drop("s")
		store.create("s", sequence.DefaultSpec())
		other, err := store.Reserve(ctx, "s", 10) // the other process draws 1..10
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(testRevalidate)
		synctest.Wait()
		for range 100 {
			v, err := c.Next(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if other.Contains(v) {
				t.Fatalf("value %d after the bound: the other process has it", v)
			}
			if v <= other.Last() {
				t.Fatalf("value %d after the bound: not of the new sequence (at %d)", v, other.Last())
			}
		}
		if st := c.Stats("s"); st.Revalidations != 1 {
			t.Errorf("Revalidations = %d, want 1", st.Revalidations)
		}
		if c.Incarnation("s") == inc {
			t.Error("Incarnation unchanged after the new sequence was noticed: currval would answer the old one's")
		}
	})
}

// A refill that brings a block of another incarnation drops the blocks of
// the old one it finds cached, without waiting for a check.
func TestRevalidateRefillOfNewIncarnation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, c := quietCache(t, func(o *Options) { o.Revalidate = -1 })
		ctx := context.Background()
		h := c.Handle("s")
		inc := h.Incarnation()
		store.drop("s")
		store.create("s", sequence.DefaultSpec())
		if _, err := store.Reserve(ctx, "s", 1000); err != nil { // the other process draws 1..1000
			t.Fatal(err)
		}
		h.mu.Lock()
		h.standby = nil // so that the next Next asks the store at once
		h.standbyN = 0
		h.startRefillLocked()
		h.mu.Unlock()
		synctest.Wait()
		v, err := c.Next(ctx, "s")
		if err != nil || v != 1001 {
			t.Fatalf("after a block of the new sequence arrived: %d, %v; want 1001", v, err)
		}
		if st := c.Stats("s"); st.Revalidations != 1 || st.Checks != 0 {
			t.Errorf("Stats = %+v; want 1 revalidation, no check", st)
		}
		if h.Incarnation() == inc {
			t.Error("Incarnation unchanged by a block of another sequence")
		}
	})
}

// After another process renames the sequence, the old name fails with 42P01
// and the new one continues the sequence.
func TestRevalidateRename(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, c := quietCache(t)
		ctx := context.Background()
		store.rename("s", "t")
		time.Sleep(testRevalidate)
		synctest.Wait()
		if _, err := c.Next(ctx, "s"); !errors.Is(err, sequence.ErrNotFound) {
			t.Fatalf("old name after the bound: %v; want not found", err)
		}
		v, err := c.Next(ctx, "t")
		if err != nil || v <= 1 {
			t.Fatalf("new name: %d, %v; want a value after the old name's", v, err)
		}
	})
}

// setval and ALTER by another process keep the cached values, as
// PostgreSQL's CACHE does: the sequence is the same.
func TestRevalidateKeepsCacheAcrossSetval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, c := quietCache(t)
		store.setval("s", 1000, true)
		time.Sleep(3 * testRevalidate)
		synctest.Wait()
		if v, err := c.Next(context.Background(), "s"); err != nil || v != 2 {
			t.Fatalf("after setval elsewhere: %d, %v; want 2 from the cached block", v, err)
		}
		if st := c.Stats("s"); st.Checks < 2 || st.Revalidations != 0 {
			t.Errorf("Stats = %+v; want checks and no revalidation", st)
		}
	})
}

// With the store unreachable, the checks fail and the cache keeps serving.
func TestRevalidateStoreDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, c := quietCache(t)
		store.setDown(true)
		time.Sleep(3 * testRevalidate)
		synctest.Wait()
		if v, err := c.Next(context.Background(), "s"); err != nil || v != 2 {
			t.Fatalf("store down: %d, %v; want 2 from the cached block", v, err)
		}
		if st := c.Stats("s"); st.CheckErrors == 0 || st.Revalidations != 0 {
			t.Errorf("Stats = %+v; want failed checks and no revalidation", st)
		}
	})
}

// A quiet sequence is read at most once per interval; a sequence with
// nothing cached is not read; a negative Revalidate turns the checks off.
func TestRevalidateReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, c := quietCache(t)
		c.Handle("idle") // no value drawn: nothing to check
		time.Sleep(10*testRevalidate + testRevalidate/2)
		synctest.Wait()
		if n := store.genCalls(); n < 9 || n > 10 {
			t.Errorf("%d reads in 10.5 intervals, want 9 or 10 (one per interval but the first, which the reservation covered)", n)
		}
		if st := c.Stats("idle"); st.Checks != 0 {
			t.Errorf("idle handle: %d checks", st.Checks)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		store, c := quietCache(t, func(o *Options) { o.Revalidate = -1 })
		store.drop("s")
		time.Sleep(10 * testRevalidate)
		synctest.Wait()
		if n := store.genCalls(); n != 0 {
			t.Errorf("Revalidate < 0: %d reads", n)
		}
		if v, err := c.Next(context.Background(), "s"); err != nil || v != 2 {
			t.Errorf("Revalidate < 0: %d, %v; want 2 from the cached block", v, err)
		}
	})
}

// A sequence drawn steadily refills more often than the interval: its
// reservations validate it, and no read is added.
func TestRevalidateBusyNoReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.create("s", sequence.DefaultSpec())
		c := newTestCache(t, store, func(o *Options) { o.Revalidate = 2 * time.Second })
		draw(t, c.Handle("s"), 10_000, 30*time.Second, nil)
		if st := c.Stats("s"); st.Checks != 0 {
			t.Errorf("%d checks of a sequence with %d reservations in 30s, want none", st.Checks, st.Reservations)
		}
	})
}

// A store with neither Gen nor Describe cannot be checked: no goroutine
// asks it.
func TestRevalidateUnsupportedStore(t *testing.T) {
	store := newFakeStore()
	if canRevalidate(reserveOnly{store}) {
		t.Error("canRevalidate(a store with Reserve only) = true")
	}
	if !canRevalidate(store) {
		t.Error("canRevalidate(a sequence.Validator) = false")
	}
}

type reserveOnly struct{ f *fakeStore }

func (r reserveOnly) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return r.f.Reserve(ctx, name, n)
}

// A sequence's policy sets its own revalidation interval (seqctl alter
// --revalidate): shorter than Options.Revalidate, a drop is seen within the
// policy's interval.
func TestRevalidatePolicyInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.create("s", sequence.DefaultSpec())
		store.setPolicy("s", sequence.Policy{Revalidate: 200 * time.Millisecond})
		c := newTestCache(t, store, func(o *Options) { o.Revalidate = time.Hour })
		ctx := context.Background()
		if v, err := c.Next(ctx, "s"); err != nil || v != 1 {
			t.Fatalf("first value %d, %v", v, err)
		}
		synctest.Wait()
		if p := c.Handle("s").Policy(); p.Revalidate != 200*time.Millisecond {
			t.Fatalf("policy %+v, want the store's", p)
		}
		// The loop armed for an hour picks the shorter interval up once it
		// wakes: give it that first hour, then drop.
		time.Sleep(time.Hour)
		synctest.Wait()
		store.drop("s")
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		if _, err := c.Next(ctx, "s"); !errors.Is(err, sequence.ErrNotFound) {
			t.Fatalf("200ms after the drop, with a 200ms policy: %v; want not found", err)
		}
	})
}
