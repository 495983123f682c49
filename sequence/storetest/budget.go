package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// fakeClock is the stores' clock under RunBudget: it moves only when told.
// It is safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

// newFakeClock returns a clock stopped at t.
func newFakeClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

// Now returns the clock's time; pass it as a store's clock option.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// RunBudget runs the daily-limit part of the store contract
// ([sequence.Spec.DailyLimit], see [sequence.Reserver]) against the stores
// open returns. open gets the run's one fake clock, which the store must use
// as its clock (as memstore, sqlstore and dynamostore take it in their
// Options.Now); the tests move it across UTC days. Every store open returns
// within one RunBudget call must share its data with the others, as handles
// of separate processes on one store do: the concurrency test opens 8 of them
// and races them at the limit, 4 goroutines on each (8 goroutines with a
// handle each stand for 8 processes here; seqshim's driver tests run real
// processes).
func RunBudget(t *testing.T, open func(t *testing.T, now func() time.Time) sequence.Store) {
	t.Helper()
	n := newNamer(t)
	clock := newFakeClock(time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC))
	tests := []struct {
		name string
		fn   func(t *testing.T, clock *fakeClock, open func(t *testing.T) sequence.Store, n namer)
	}{
		{"Limit", testBudgetLimit},
		{"Alter", testBudgetAlter},
		{"Concurrent", testBudgetConcurrent},
		{"Cache", testBudgetCache},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock.Set(time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC))
			tt.fn(t, clock, func(t *testing.T) sequence.Store { return open(t, clock.Now) }, n.sub("budget_"+tt.name))
		})
	}
}

// budgetModel is a model with the day's usage, at a clock.
type budgetModel struct {
	model
	usage sequence.Usage
	clock *fakeClock
}

// reserveBudget reserves n values in st and checks the block, or the error,
// against the model's [sequence.Spec.ReserveAt] at the clock's time.
func reserveBudget(t *testing.T, st sequence.Store, m *budgetModel, n int64) sequence.Block {
	t.Helper()
	want, pos, usage, wantErr := m.spec.ReserveAt(m.name, m.pos, m.usage, m.clock.Now(), n)
	got, err := st.Reserve(t.Context(), m.name, n)
	if wantErr != nil {
		checkError(t, fmt.Sprintf("Reserve(%s, %d) at %v", m.name, n, m.clock.Now()), err, wantErr)
		return got
	}
	if err != nil {
		t.Fatalf("Reserve(%s, %d) at %v: %v, want %+v", m.name, n, m.clock.Now(), err, want)
	}
	if !sameValues(got, want) {
		t.Fatalf("Reserve(%s, %d) at %v = %+v, want %+v", m.name, n, m.clock.Now(), got, want)
	}
	m.pos, m.usage = pos, usage
	return got
}

// describeBudget checks Describe against the model, the day's usage included.
func describeBudget(t *testing.T, st sequence.Store, m *budgetModel) sequence.Info {
	t.Helper()
	info := describe(t, st, &m.model)
	if info.DayUsage != m.usage {
		t.Fatalf("Describe(%s): day usage %+v, want %+v", m.name, info.DayUsage, m.usage)
	}
	return info
}

func createBudget(t *testing.T, st sequence.Store, clock *fakeClock, name string, c sequence.Clauses) *budgetModel {
	t.Helper()
	return &budgetModel{model: *create(t, st, name, c), clock: clock}
}

func testBudgetLimit(t *testing.T, clock *fakeClock, open func(t *testing.T) sequence.Store, n namer) {
	st := open(t)
	day := sequence.DayOf(clock.Now())
	m := createBudget(t, st, clock, n.name("s"), sequence.Clauses{DailyLimit: sequence.Int64(100)})
	if info := describeBudget(t, st, m); info.Spec.DailyLimit != 100 {
		t.Fatalf("DailyLimit %d after Create, want 100", info.Spec.DailyLimit)
	}
	for _, k := range []int64{30, 30, 30} {
		reserveBudget(t, st, m, k)
	}
	// The block that would cross the limit is truncated to what is left...
	if b := reserveBudget(t, st, m, 30); b.Count != 10 || b.Last() != 100 {
		t.Fatalf("the block crossing the limit: %+v, want 91..100", b)
	}
	// ... and the next reservation is refused, naming the sequence, the
	// limit and when it resets; it changes nothing.
	reserveBudget(t, st, m, 1)
	_, err := st.Reserve(t.Context(), m.name, 1)
	if !errors.Is(err, sequence.ErrDailyLimit) || sequence.IsTransient(err) {
		t.Fatalf("Reserve at the limit: %v; want sequence.ErrDailyLimit, not transient", err)
	}
	var e *sequence.Error
	if errors.As(err, &e); e.Code != "54000" {
		t.Errorf("code %s, want 54000", e.Code)
	}
	if want := sequence.DailyLimitError(m.name, 100, day); e.Message != want.Message {
		t.Errorf("message %q, want %q", e.Message, want.Message)
	}
	describeBudget(t, st, m)

	// The last instant of the day is still the same day.
	clock.Set((day + 1).Start().Add(-time.Millisecond))
	reserveBudget(t, st, m, 1)
	// At midnight UTC the count restarts.
	clock.Set((day + 1).Start())
	reserveBudget(t, st, m, 70)
	if info := describeBudget(t, st, m); info.DayUsage != (sequence.Usage{Day: day + 1, Used: 70}) {
		t.Fatalf("usage on the next day: %+v", info.DayUsage)
	}
	reserveBudget(t, st, m, 50) // truncated to 30
	reserveBudget(t, st, m, 1)  // refused
	// Days later, a fresh count again; another handle on the store agrees.
	clock.Set((day + 5).Start().Add(3 * time.Hour))
	other := open(t)
	reserveBudget(t, other, m, 100)
	reserveBudget(t, st, m, 1) // refused
	describeBudget(t, other, m)

	// A sequence without a limit counts nothing.
	free := createBudget(t, st, clock, n.name("free"), sequence.Clauses{})
	reserveBudget(t, st, free, 1_000_000)
	describeBudget(t, st, free)
}

func testBudgetAlter(t *testing.T, clock *fakeClock, open func(t *testing.T) sequence.Store, n namer) {
	st := open(t)
	ctx := t.Context()
	day := sequence.DayOf(clock.Now())
	m := createBudget(t, st, clock, n.name("s"), sequence.Clauses{})
	reserveBudget(t, st, m, 500) // no limit: not counted

	alter := func(c sequence.Clauses) {
		t.Helper()
		want, pos, err := c.Alter(m.spec, m.pos)
		if err != nil {
			t.Fatal(err)
		}
		info, err := st.Alter(ctx, m.name, c)
		if err != nil {
			t.Fatalf("Alter(%s): %v", m.name, err)
		}
		m.spec, m.pos = want, pos
		if !info.Spec.Equal(want) {
			t.Fatalf("Alter returned spec {%v} limit %d, want limit %d", info.Spec, info.Spec.DailyLimit, want.DailyLimit)
		}
		describeBudget(t, st, m)
	}
	alter(sequence.Clauses{DailyLimit: sequence.Int64(100)})
	reserveBudget(t, st, m, 60)
	reserveBudget(t, st, m, 60) // truncated to 40
	reserveBudget(t, st, m, 1)  // refused
	// Other clauses, SetVal and Rename keep the limit and the day's count.
	alter(sequence.Clauses{Increment: sequence.Int64(2)})
	reserveBudget(t, st, m, 1) // still refused
	if _, err := st.SetVal(ctx, m.name, 5000, true); err != nil {
		t.Fatal(err)
	}
	m.pos = sequence.Position{Last: 5000, Called: true}
	describeBudget(t, st, m)
	renamed := n.name("renamed")
	if err := st.Rename(ctx, m.name, renamed); err != nil {
		t.Fatal(err)
	}
	m.name = renamed
	describeBudget(t, st, m)
	reserveBudget(t, st, m, 1) // still refused
	// Raising the limit lets the day go on from its count.
	alter(sequence.Clauses{DailyLimit: sequence.Int64(150)})
	reserveBudget(t, st, m, 80) // truncated to 50
	reserveBudget(t, st, m, 1)  // refused
	// Lowering it below the count stops reservations at once.
	alter(sequence.Clauses{DailyLimit: sequence.Int64(20)})
	reserveBudget(t, st, m, 1)
	// Removing it: no limit, nothing counted.
	alter(sequence.Clauses{DailyLimit: sequence.Int64(0)})
	reserveBudget(t, st, m, 10_000)
	if info := describeBudget(t, st, m); info.DayUsage != (sequence.Usage{Day: day, Used: 150}) {
		t.Fatalf("usage after the limit was removed: %+v", info.DayUsage)
	}
	// Set again the same day: the values counted while it was in force
	// still count.
	alter(sequence.Clauses{DailyLimit: sequence.Int64(160)})
	reserveBudget(t, st, m, 100) // truncated to 10

	// List shows the limit and the usage.
	infos, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, info := range infos {
		if info.Name == m.name {
			found = true
			if info.Spec.DailyLimit != 160 || info.DayUsage != m.usage {
				t.Errorf("List: limit %d usage %+v, want 160 %+v", info.Spec.DailyLimit, info.DayUsage, m.usage)
			}
		}
	}
	if !found {
		t.Errorf("List misses %s", m.name)
	}
	// A negative limit is PostgreSQL-style 22023, and changes nothing.
	_, err = st.Alter(ctx, m.name, sequence.Clauses{DailyLimit: sequence.Int64(-1)})
	var e *sequence.Error
	if !errors.As(err, &e) || e.Code != sequence.CodeInvalidParameterValue {
		t.Errorf("Alter to a negative limit: %v, want 22023", err)
	}
	describeBudget(t, st, m)
}

func testBudgetConcurrent(t *testing.T, clock *fakeClock, open func(t *testing.T) sequence.Store, n namer) {
	const handles, perHandle, limit = 8, 4, 1000
	stores := make([]sequence.Store, handles)
	for i := range stores {
		stores[i] = open(t)
	}
	m := createBudget(t, stores[0], clock, n.name("s"), sequence.Clauses{DailyLimit: sequence.Int64(limit)})
	day := sequence.DayOf(clock.Now())
	var all []sequence.Block
	for round := range 3 {
		// Each round is a day: every goroutine reserves blocks of 1 to 37
		// values until the limit refuses it.
		var (
			mu     sync.Mutex
			blocks []sequence.Block
			wg     sync.WaitGroup
			total  atomic.Int64 // values handed out this round, to stop a store that never refuses
		)
		errs := make(chan error, handles*perHandle)
		for h, st := range stores {
			for g := range perHandle {
				wg.Go(func() {
					var mine []sequence.Block
					for i := 0; ; i++ {
						b, err := st.Reserve(t.Context(), m.name, int64((h*perHandle+g+i)%37+1))
						if errors.Is(err, sequence.ErrDailyLimit) {
							break
						}
						if errors.Is(err, sequence.ErrConflict) {
							continue // lost races more often than the store retries: try again, as a cache would
						}
						if err != nil {
							errs <- fmt.Errorf("handle %d goroutine %d: %w", h, g, err)
							return
						}
						mine = append(mine, b)
						if total.Add(b.Count) > limit {
							errs <- fmt.Errorf("more than %d values handed out in one day", limit)
							return
						}
					}
					mu.Lock()
					blocks = append(blocks, mine...)
					mu.Unlock()
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		// Exactly the limit, no value twice, none skipped.
		lo := int64(round*limit + 1)
		checkExact(t, blocks, lo, lo+limit-1)
		all = append(all, blocks...)
		m.pos = sequence.Position{Last: lo + limit - 1, Called: true}
		m.usage = sequence.Usage{Day: day + sequence.Day(round), Used: limit}
		describeBudget(t, stores[round%handles], m)
		clock.Set((day + sequence.Day(round) + 1).Start())
	}
	checkExact(t, all, 1, 3*limit)
}

func testBudgetCache(t *testing.T, clock *fakeClock, open func(t *testing.T) sequence.Store, n namer) {
	const limit = 250
	st := open(t)
	m := createBudget(t, st, clock, n.name("s"), sequence.Clauses{DailyLimit: sequence.Int64(limit)})
	day := sequence.DayOf(clock.Now())
	// A cache that would wait a long time for a transient failure: the
	// daily limit must end Next at once, not after MaxWait.
	c := seqcache.New(st, func(o *seqcache.Options) { o.MinBlock, o.MaxBlock, o.MaxWait = 100, 100, 10*time.Minute })
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var got []int64
	for {
		v, err := c.Next(ctx, m.name)
		if err != nil {
			if !errors.Is(err, sequence.ErrDailyLimit) {
				t.Fatalf("after %d values: %v, want the daily limit's error at once (a transient failure would wait)", len(got), err)
			}
			break
		}
		got = append(got, v)
		if len(got) > limit {
			t.Fatalf("the cache served more than the daily limit of %d values", limit)
		}
	}
	if len(got) != limit || got[0] != 1 || got[len(got)-1] != limit {
		t.Fatalf("the cache served %d values (%v…), want 1..%d", len(got), got[:min(len(got), 3)], limit)
	}
	// Still refused until midnight UTC; then the cache serves again.
	if _, err := c.Next(ctx, m.name); !errors.Is(err, sequence.ErrDailyLimit) {
		t.Fatalf("Next again: %v", err)
	}
	clock.Set((day + 1).Start())
	if v, err := c.Next(ctx, m.name); err != nil || v != limit+1 {
		t.Fatalf("Next on the next day = %d, %v; want %d", v, err, limit+1)
	}
}
