package seqcache

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/seqshim/seqshim/sequence"
)

// recoverStore is a store with tokens (sequence.Recoverer) whose faults are
// scripted per reservation attempt: the answer of an applied reservation
// lost, a reservation refused (throttled) without being applied, or one
// applied only after its read-back said there was no proof (a request still
// in flight). It keeps the token of its latest reservation only, as real
// stores do.
type recoverStore struct {
	mu      sync.Mutex // guards the fields below
	spec    sequence.Spec
	pos     sequence.Position
	faults  []fault          // one per attempt, in order; then none
	applied []sequence.Block // every block the store handed out, answered or not
	tok     sequence.Token   // the latest reservation's token
	tokB    sequence.Block   // and its block
	tokens  map[sequence.Token]bool
	late    func() // applies the late reservation; run by the next Recover
	recov   int    // Recover calls
	plain   int    // reservations without a token
	failRec int    // Recover calls still to fail (the read-back lost too); -1: all
}

type fault int

const (
	ok         fault = iota
	lostAnswer       // applied, answer lost
	throttled        // refused before applying
	lateApply        // not applied yet; applied right after the read-back
)

var errLost = errors.New("test: connection reset after the store applied the request")

func newRecoverStore(faults ...fault) *recoverStore {
	spec := sequence.DefaultSpec()
	return &recoverStore{spec: spec, pos: spec.Initial(), faults: faults, tokens: map[sequence.Token]bool{}}
}

func (s *recoverStore) applyLocked(n int64, tok sequence.Token) (sequence.Block, error) {
	b, pos, err := s.spec.Reserve("s", s.pos, n)
	if err != nil {
		return b, err
	}
	s.pos = pos
	s.applied = append(s.applied, b)
	s.tok, s.tokB = tok, b
	return b, nil
}

func (s *recoverStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return s.ReserveToken(ctx, name, n, sequence.Token{})
}

func (s *recoverStore) ReserveToken(_ context.Context, _ string, n int64, tok sequence.Token) (sequence.Block, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.IsZero() {
		s.plain++
	} else {
		if s.tokens[tok] {
			panic("a token used for two reservations")
		}
		s.tokens[tok] = true
	}
	f := ok
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	switch f {
	case throttled:
		return sequence.Block{}, sequence.Throttled(errors.New("test: throttled"))
	case lateApply:
		s.late = func() { s.applyLocked(n, tok) } //nolint:errcheck // the test's sequence never ends
		return sequence.Block{}, context.DeadlineExceeded
	}
	b, err := s.applyLocked(n, tok)
	if err == nil && f == lostAnswer {
		return sequence.Block{}, errLost
	}
	return b, err
}

func (s *recoverStore) Recover(_ context.Context, _ string, tok sequence.Token) (sequence.Block, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recov++
	if s.failRec != 0 {
		s.failRec--
		return sequence.Block{}, false, errLost
	}
	proof := !tok.IsZero() && tok == s.tok
	if s.late != nil {
		s.late() // lands after the read: a gap
		s.late = nil
	}
	if !proof {
		return sequence.Block{}, false, nil
	}
	return s.tokB, true, nil
}

var _ sequence.Recoverer = (*recoverStore)(nil)

// drawAll draws n values from h, failing the test on an error or a
// duplicate.
func drawAll(t *testing.T, h *Handle, n int) []int64 {
	t.Helper()
	seen := map[int64]bool{}
	var got []int64
	for range n {
		v, err := h.Next(t.Context())
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if seen[v] {
			t.Fatalf("value %d handed out twice", v)
		}
		seen[v] = true
		got = append(got, v)
	}
	return got
}

// TestRecoverLostAnswers: with every other reservation's answer lost after
// the store applied it, the cache adopts each lost block by its token: the
// values served are 1, 2, 3, ... with no gap and none twice, and every block
// the store handed out is the cache's. With recovery off, the same faults
// leave gaps.
func TestRecoverLostAnswers(t *testing.T) {
	faults := func() []fault {
		var f []fault
		for range 20 {
			f = append(f, lostAnswer, ok)
		}
		return f
	}
	synctest.Test(t, func(t *testing.T) {
		store := newRecoverStore(faults()...)
		c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock = 10, 10 })
		defer c.Close()
		h := c.Handle("s")
		got := drawAll(t, h, 300)
		for i, v := range got {
			if v != int64(i+1) {
				t.Fatalf("value %d is %d, want %d: a block was lost or skipped", i, v, i+1)
			}
		}
		synctest.Wait() // the refill done: Close cancels none
		c.Close()
		st := h.Stats()
		store.mu.Lock()
		applied := slices.Clone(store.applied)
		store.mu.Unlock()
		var total int64
		for _, b := range applied {
			total += b.Count
		}
		if st.Reserved != total || st.Reservations != int64(len(applied)) {
			t.Errorf("the cache has %d blocks (%d values), the store handed out %d (%d values)", st.Reservations, st.Reserved, len(applied), total)
		}
		if st.Recoveries < 15 || st.Recovered != 10*st.Recoveries || st.StoreErrors < st.Recoveries {
			t.Errorf("Stats: %d recoveries, %d values recovered, %d store errors; want at least 15 recoveries of 10 values, each a store error", st.Recoveries, st.Recovered, st.StoreErrors)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		store := newRecoverStore(faults()...)
		c := New(store, func(o *Options) {
			o.MinBlock, o.MaxBlock = 10, 10
			o.NoRecovery = true
		})
		defer c.Close()
		h := c.Handle("s")
		got := drawAll(t, h, 300)
		if got[len(got)-1] == int64(len(got)) {
			t.Errorf("with recovery off, no gap: the last of %d values is %d", len(got), got[len(got)-1])
		}
		if st := h.Stats(); st.Recoveries != 0 || store.recov != 0 {
			t.Errorf("with recovery off: %d recoveries, %d Recover calls", st.Recoveries, store.recov)
		}
	})
}

// TestRecoverNoProof: no block is adopted without proof. A read-back that
// fails, a reservation applied only after its read-back (still in flight
// when the attempt timed out), and a throttled attempt (never applied, so
// never read back) leave gaps; no value is handed out twice, none comes from
// a block the cache did not receive, and every attempt has its own token.
func TestRecoverNoProof(t *testing.T) {
	for _, tt := range []struct {
		name     string
		fault    fault
		failRec  int
		gap      bool // the fault leaves a gap of one block
		recovers int  // Recover calls wanted
	}{
		{"read-back always fails", lostAnswer, -1, true, maxReadBacks},
		{"applied after the read-back", lateApply, 0, true, 1},
		{"throttled: not read back", throttled, 0, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := newRecoverStore(ok, tt.fault, ok, ok, ok)
				store.failRec = tt.failRec
				c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock = 10, 10 })
				defer c.Close()
				h := c.Handle("s")
				got := drawAll(t, h, 40)
				c.Close()

				store.mu.Lock()
				defer store.mu.Unlock()
				if store.recov != tt.recovers {
					t.Errorf("%d Recover calls, want %d", store.recov, tt.recovers)
				}
				// ReserveToken panics on a token used twice.
				if store.plain != 0 || len(store.tokens) < 5 {
					t.Errorf("%d reservations without a token, %d with", store.plain, len(store.tokens))
				}
				// The second block (11..20) was the faulty attempt's.
				lost := store.applied[1]
				if !tt.gap {
					lost = sequence.Block{}
				}
				for _, v := range got {
					if lost.Contains(v) {
						t.Fatalf("value %d of the block without proof %+v was handed out", v, lost)
					}
					if !slices.ContainsFunc(store.applied, func(b sequence.Block) bool { return b.Contains(v) }) {
						t.Fatalf("value %d is in no block the store handed out", v)
					}
				}
				if st := h.Stats(); st.Recoveries != 0 {
					t.Errorf("%d recoveries without proof", st.Recoveries)
				}
			})
		})
	}
}

// TestRecoverReadBackRetried: a read-back that fails (the store unreachable)
// is tried again by the next refills before any new reservation, and the
// block adopted once it answers: no value lost, no reservation made in
// between. A change to the sequence in between (Invalidate) gives it up.
func TestRecoverReadBackRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newRecoverStore(ok, lostAnswer, ok, ok, ok)
		store.failRec = 3
		c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock = 10, 10 })
		defer c.Close()
		h := c.Handle("s")
		got := drawAll(t, h, 40)
		for i, v := range got {
			if v != int64(i+1) {
				t.Fatalf("value %d is %d, want %d: the block was not recovered", i, v, i+1)
			}
		}
		store.mu.Lock()
		defer store.mu.Unlock()
		// Values in order (above) show no reservation came between the
		// lost one and its recovery.
		if store.recov != 4 {
			t.Errorf("%d Recover calls, want 4 (3 failed read-backs, then the proof)", store.recov)
		}
		if st := h.Stats(); st.Recoveries != 1 || st.Recovered != 10 {
			t.Errorf("Stats: %d recoveries of %d values, want 1 of 10", st.Recoveries, st.Recovered)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		store := newRecoverStore(ok, lostAnswer, ok, ok, ok, ok)
		store.failRec = -1
		c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock = 10, 10 })
		defer c.Close()
		h := c.Handle("s")
		drawAll(t, h, 5) // the first block; the second's answer is lost
		synctest.Wait()
		store.mu.Lock()
		store.failRec = 0 // readable again: only the Invalidate stops the recovery
		store.mu.Unlock()
		c.Invalidate("s")
		got := drawAll(t, h, 20)
		lost := sequence.Block{First: 11, Step: 1, Count: 10}
		for _, v := range got {
			if lost.Contains(v) {
				t.Fatalf("value %d of the block reserved before Invalidate was handed out after it", v)
			}
		}
	})
}
