package seqcache

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// A policy changed in the store reaches a running cache with the next
// block: the blocks asked for after it follow its bounds, the Options
// stay the defaults of other sequences, and resetting it brings them back.
func TestPolicyChangesBlockSizes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := newFakeStore()
		store.create("s", sequence.DefaultSpec())
		const otherStart = 1 << 40 // tells the other sequence's blocks apart
		store.create("other", mustSpec(t, sequence.Clauses{Start: sequence.Int64(otherStart)}))
		c := New(store) // MinBlock 50, MaxBlock 1,000,000
		defer c.Close()
		h, other := c.Handle("s"), c.Handle("other")

		// sizesAfter returns the sizes of the blocks of s reserved after
		// the first one that carried p: those asked for under p.
		blocksOf := func(other bool) []sequence.Block {
			_, all := store.stats()
			var blocks []sequence.Block
			for _, b := range all {
				if (b.First >= otherStart) == other {
					blocks = append(blocks, b)
				}
			}
			return blocks
		}
		sizesAfter := func(p sequence.Policy) []int64 {
			t.Helper()
			blocks := blocksOf(false)
			var sizes []int64
			carried := false
			for _, b := range blocks {
				if b.Step == 0 || b.Policy != p {
					if carried && b.Policy != p {
						t.Fatalf("block %+v after one carrying %+v", b, p)
					}
					continue
				}
				if carried {
					sizes = append(sizes, b.Count)
				}
				carried = true
			}
			return sizes
		}
		check := func(p sequence.Policy, want int64) {
			t.Helper()
			if got := h.Policy(); got != p {
				t.Fatalf("Handle.Policy() = %+v, want %+v", got, p)
			}
			sizes := sizesAfter(p)
			if len(sizes) == 0 {
				t.Fatalf("no block reserved under policy %+v", p)
			}
			for _, n := range sizes {
				if n != want {
					t.Fatalf("block sizes under policy %+v: %v, want all %d", p, sizes, want)
				}
			}
		}

		// 10 values a second: far below what MinBlock lasts, so every
		// block is MinBlock values, whoever sets it.
		drawCoarse(t, h, 10, 20*time.Second, nil)
		if blocks := blocksOf(false); len(blocks) == 0 || blocks[0].Count != 50 {
			t.Fatalf("first blocks %+v, want 50 values (Options.MinBlock)", blocks)
		}

		raised := sequence.Policy{MinBlock: 700}
		store.setPolicy("s", raised)
		drawCoarse(t, h, 10, 30*time.Second, nil)
		check(raised, 700)

		// A MaxBlock below Options.MinBlock wins over it.
		lowered := sequence.Policy{MaxBlock: 20}
		store.setPolicy("s", lowered)
		drawCoarse(t, h, 10, 150*time.Second, nil)
		check(lowered, 20)

		// The other sequence kept the cache's defaults.
		drawCoarse(t, other, 10, 10*time.Second, nil)
		for _, b := range blocksOf(true) {
			if !b.Policy.IsZero() || b.Count != 50 {
				t.Errorf("other sequence's block %+v, want 50 values (Options.MinBlock), no policy", b)
			}
		}
		if p := other.Policy(); !p.IsZero() {
			t.Errorf("other sequence's policy %+v, want none", p)
		}

		// Reset: the Options are in force again.
		store.setPolicy("s", sequence.Policy{})
		drawCoarse(t, h, 10, 60*time.Second, nil)
		if p := h.Policy(); !p.IsZero() {
			t.Fatalf("policy after the reset %+v, want none", p)
		}
		blocks := blocksOf(false)
		if last := blocks[len(blocks)-1]; last.Count != 50 {
			t.Errorf("last block after the reset %+v, want 50 values (Options.MinBlock)", last)
		}
	})
}

// The buffer of a policy sets the refill threshold, as Options.Buffer does,
// from the block that carries it; the bounds clamp each other as documented.
func TestPolicyLimits(t *testing.T) {
	store := newFakeStore()
	c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock, o.Buffer = 100, 1000, 10*time.Second })
	defer c.Close()
	h := c.Handle("s")
	for _, tt := range []struct {
		p                  sequence.Policy
		buffer             time.Duration
		minBlock, maxBlock int64
		thresh             int64 // at 100 values/s
	}{
		{sequence.Policy{}, 10 * time.Second, 100, 1000, 1000},
		{sequence.Policy{Buffer: 30 * time.Second}, 30 * time.Second, 100, 1000, 3000},
		{sequence.Policy{MinBlock: 5000}, 10 * time.Second, 5000, 5000, 1000},
		{sequence.Policy{MaxBlock: 10}, 10 * time.Second, 10, 10, 1000},
		{sequence.Policy{MinBlock: 200, MaxBlock: 300, Buffer: 100 * time.Millisecond}, 100 * time.Millisecond, 200, 300, 50},
		{sequence.Policy{Revalidate: time.Second}, 10 * time.Second, 100, 1000, 1000},
	} {
		h.mu.Lock()
		h.rate = 100
		h.applyPolicyLocked(tt.p)
		buffer, lo, hi := h.limitsLocked()
		thresh := h.thresh
		h.mu.Unlock()
		if buffer != tt.buffer || lo != tt.minBlock || hi != tt.maxBlock {
			t.Errorf("policy %+v: limits %v %d %d, want %v %d %d", tt.p, buffer, lo, hi, tt.buffer, tt.minBlock, tt.maxBlock)
		}
		if tt.p.Buffer != 0 && thresh != tt.thresh {
			t.Errorf("policy %+v: threshold %d, want %d", tt.p, thresh, tt.thresh)
		}
		if got := h.Policy(); got != tt.p {
			t.Errorf("Policy() = %+v, want %+v", got, tt.p)
		}
	}
}
