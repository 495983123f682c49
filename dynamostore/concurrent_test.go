package dynamostore_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// blockLog collects the blocks received and released by several recorders.
type blockLog struct {
	mu        sync.Mutex
	blocks    []sequence.Block
	released  []sequence.Block // in the order the store accepted them
	recovered []sequence.Block // received by Recover (in blocks too)

	frozen   bool
	inflight int
	idle     *sync.Cond // signalled when inflight drops to 0
}

var errFrozen = errors.New("test: reservations frozen")

// freeze makes every later Reserve fail without reaching the store and waits
// for those in flight: after it, released values cannot be reserved again,
// so the blocks logged are final.
func (l *blockLog) freeze() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.frozen = true
	if l.idle == nil {
		l.idle = sync.NewCond(&l.mu)
	}
	for l.inflight > 0 {
		l.idle.Wait()
	}
}

// recorder wraps a Store and records every block received and every release.
type recorder struct {
	*dynamostore.Store
	log *blockLog
}

var (
	_ sequence.Releaser  = recorder{}
	_ sequence.Recoverer = recorder{}
)

// Reserve ignores the caller's cancellation (Cache.Close cancels refills in
// flight), so that every block the store applies is received and recorded:
// the test then knows every block exactly.
func (r recorder) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return r.ReserveToken(ctx, name, n, sequence.Token{})
}

// Recover records the block recovered, as received.
func (r recorder) Recover(ctx context.Context, name string, token sequence.Token) (sequence.Block, bool, error) {
	b, ok, err := r.Store.Recover(ctx, name, token)
	if ok {
		r.log.mu.Lock()
		r.log.blocks = append(r.log.blocks, b)
		r.log.recovered = append(r.log.recovered, b)
		r.log.mu.Unlock()
	}
	return b, ok, err
}

// ReserveToken is Reserve with a token (the zero Token: none).
func (r recorder) ReserveToken(ctx context.Context, name string, n int64, token sequence.Token) (sequence.Block, error) {
	l := r.log
	l.mu.Lock()
	if l.frozen {
		l.mu.Unlock()
		return sequence.Block{}, errFrozen
	}
	l.inflight++
	l.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	b, err := r.Store.ReserveToken(ctx, name, n, token)

	l.mu.Lock()
	if err == nil {
		l.blocks = append(l.blocks, b)
	}
	if l.inflight--; l.inflight == 0 && l.idle != nil {
		l.idle.Broadcast()
	}
	l.mu.Unlock()
	return b, err
}

func (r recorder) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	ok, err := r.Store.Release(ctx, name, unused)
	if ok {
		r.log.mu.Lock()
		r.log.released = append(r.log.released, unused)
		r.log.mu.Unlock()
	}
	return ok, err
}

// TestCachesConcurrent: 8 processes (a Store and a seqcache.Cache each) with
// 8 goroutines each draw values of one sequence. Every value is distinct, the
// blocks received tile the sequence from START with no hole, and the final
// position and counters account for every block and every release.
func TestCachesConcurrent(t *testing.T) {
	const (
		caches     = 8
		goroutines = 8
		perG       = 1500
	)
	client := testClient(t)
	table := testTable(t)
	admin := dynamostore.New(client, table)
	spec, pos, _ := sequence.Clauses{Increment: sequence.Int64(3)}.Create()
	if err := admin.Create(t.Context(), "s", spec, pos); err != nil {
		t.Fatal(err)
	}

	var (
		log    blockLog
		values = make([][]int64, caches*goroutines)
		errs   = make(chan error, caches*goroutines)
	)
	cs := make([]*seqcache.Cache, caches)
	for i := range cs {
		rec := recorder{Store: dynamostore.New(client, table), log: &log}
		cs[i] = seqcache.New(rec, func(o *seqcache.Options) {
			o.MinBlock, o.MaxBlock = 50, 500
			o.MaxWait = 10 * time.Second
		})
	}
	var wg sync.WaitGroup
	for i := range caches * goroutines {
		wg.Go(func() {
			h := cs[i/goroutines].Handle("s")
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			vs := make([]int64, 0, perG)
			for range perG {
				v, err := h.Next(ctx)
				if err != nil {
					errs <- err
					return
				}
				vs = append(vs, v)
			}
			values[i] = vs
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Next: %v", err)
	}
	// No reservation after the first release; then close one at a time so
	// releases happen in a known order.
	log.freeze()
	for _, c := range cs {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}

	blocks, released := log.blocks, log.released
	seen := make(map[int64]bool, caches*goroutines*perG)
	for _, vs := range values {
		for _, v := range vs {
			if seen[v] {
				t.Fatalf("value %d handed out twice", v)
			}
			seen[v] = true
		}
	}
	checkTiling(t, spec, blocks, nil)
	for v := range seen {
		if !slices.ContainsFunc(blocks, func(b sequence.Block) bool { return b.Contains(v) }) {
			t.Fatalf("value %d is in no block received", v)
		}
	}

	// Replay the releases on the position the blocks lead to.
	var sum int64
	last := blocks[0].Last()
	for _, b := range blocks {
		sum += b.Count
		last = max(last, b.Last())
	}
	want := sequence.Position{Last: last, Called: true}
	for _, r := range released {
		var ok bool
		if want, ok = spec.Release(want, r); !ok {
			t.Fatalf("release of %+v accepted by the store, refused by the model at %+v", r, want)
		}
	}
	info, err := admin.Describe(t.Context(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if info.Position != want || info.Reservations != int64(len(blocks)) || info.ValuesReserved != sum {
		t.Fatalf("final %+v; want position %+v, %d reservations of %d values", info, want, len(blocks), sum)
	}
	t.Logf("%d values served from %d blocks (%d values); %d releases; final position %+v",
		len(seen), len(blocks), sum, len(released), info.Position)
}

// checkTiling checks that blocks (received) and lost (applied by the store,
// response lost) are pairwise disjoint and together are exactly the values
// from spec.Start to the highest one (ascending sequences without CYCLE).
func checkTiling(t *testing.T, spec sequence.Spec, blocks, lost []sequence.Block) {
	t.Helper()
	all := append(slices.Clone(blocks), lost...)
	slices.SortFunc(all, func(a, b sequence.Block) int { return cmpInt(a.First, b.First) })
	next := spec.Start
	for _, b := range all {
		if b.Count <= 0 || b.Step != spec.Increment {
			t.Fatalf("malformed block %+v", b)
		}
		if b.First != next {
			if b.First < next {
				t.Fatalf("block %+v overlaps the values before %d", b, next)
			}
			t.Fatalf("values %d..%d are in no block (next block %+v)", next, b.First-spec.Increment, b)
		}
		next = b.Last() + spec.Increment
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
