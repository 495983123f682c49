package seqcache

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// fakeStore is an in-test store with injectable latency and failures. It
// computes blocks with sequence.Spec.Reserve like every real store.
type fakeStore struct {
	mu       sync.Mutex // protects the fields below (tests set latency and failNext before the first call)
	seqs     map[string]*fakeSeq
	latency  time.Duration
	down     bool // every call fails with errDown after the latency
	failNext int  // the next failNext calls fail
	calls    int  // Reserve calls, failed or not
	blocks   []sequence.Block
	releases int
	gens     int    // Gen calls, failed or not
	lastGen  uint64 // incarnations handed out by create
}

type fakeSeq struct {
	spec sequence.Spec
	pos  sequence.Position
	gen  uint64
}

var errDown = errors.New("fake store: unavailable")

func newFakeStore() *fakeStore { return &fakeStore{seqs: map[string]*fakeSeq{}} }

func (f *fakeStore) create(name string, spec sequence.Spec) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastGen++
	f.seqs[name] = &fakeSeq{spec: spec, pos: spec.Initial(), gen: f.lastGen}
}

// drop is DROP SEQUENCE by another process.
func (f *fakeStore) drop(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.seqs, name)
}

// rename is ALTER SEQUENCE ... RENAME TO by another process.
func (f *fakeStore) rename(from, to string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seqs[to] = f.seqs[from]
	delete(f.seqs, from)
}

// Gen implements sequence.Validator.
func (f *fakeStore) Gen(ctx context.Context, name string) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gens++
	if f.down {
		return 0, errDown
	}
	s, ok := f.seqs[name]
	if !ok {
		return 0, sequence.NotFoundError(name)
	}
	return s.gen, nil
}

func (f *fakeStore) genCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gens
}

func (f *fakeStore) setDown(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

func (f *fakeStore) stats() (calls int, blocks []sequence.Block) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, append([]sequence.Block(nil), f.blocks...)
}

func (f *fakeStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	f.mu.Lock()
	f.calls++
	latency := f.latency
	f.mu.Unlock()
	if latency > 0 {
		t := time.NewTimer(latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return sequence.Block{}, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return sequence.Block{}, errDown
	}
	if f.failNext > 0 {
		f.failNext--
		return sequence.Block{}, errDown
	}
	s, ok := f.seqs[name]
	if !ok {
		return sequence.Block{}, sequence.NotFoundError(name)
	}
	b, pos, err := s.spec.Reserve(name, s.pos, n)
	if err != nil {
		return sequence.Block{}, err
	}
	s.pos = pos
	b.Gen = s.gen
	f.blocks = append(f.blocks, b)
	return b, nil
}

func (f *fakeStore) position(name string) sequence.Position {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seqs[name].pos
}

func (f *fakeStore) setval(name string, v int64, called bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.seqs[name]
	s.pos = sequence.Position{Last: v, Called: called}
}

// releasingStore adds Release to fakeStore.
type releasingStore struct{ *fakeStore }

func (r releasingStore) Release(ctx context.Context, name string, unused sequence.Block) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.seqs[name]
	if !ok {
		return false, sequence.NotFoundError(name)
	}
	pos, ok := s.spec.Release(s.pos, unused)
	if ok {
		s.pos = pos
		r.releases++
	}
	return ok, nil
}

func mustSpec(t testing.TB, c sequence.Clauses) sequence.Spec {
	t.Helper()
	s, _, err := c.Create()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// setPolicy changes the cache policy stored with the sequence, as an Alter
// would: blocks reserved from then on carry it.
func (f *fakeStore) setPolicy(name string, p sequence.Policy) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seqs[name].spec.Policy = p
}
