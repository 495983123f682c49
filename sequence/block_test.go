package sequence

import (
	"errors"
	"math"
	"math/big"
	"testing"
)

func mustSpec(t testing.TB, c Clauses) Spec {
	t.Helper()
	s, _, err := c.Create()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReserve(t *testing.T) {
	type step struct {
		n       int64
		want    Block
		wantErr string
	}
	tests := []struct {
		name  string
		c     Clauses
		pos   *Position
		steps []step
	}{
		{"fresh", Clauses{}, nil, []step{{3, blk(1, 1, 3), ""}, {2, blk(4, 1, 2), ""}}},
		{"n below one", Clauses{}, nil, []step{{0, blk(1, 1, 1), ""}, {-5, blk(2, 1, 1), ""}}},
		{"increment 10", Clauses{Increment: Int64(10)}, nil, []step{{3, blk(1, 10, 3), ""}, {1, blk(31, 10, 1), ""}}},
		{"descending", Clauses{Increment: Int64(-1)}, nil, []step{{3, blk(-1, -1, 3), ""}, {1, blk(-4, -1, 1), ""}}},
		{"truncated at max", Clauses{MaxValue: Int64(10)}, nil, []step{{7, blk(1, 1, 7), ""}, {7, blk(8, 1, 3), ""},
			{1, Block{}, `nextval: reached maximum value of sequence "s" (10)`}}},
		{"truncated at min", Clauses{Increment: Int64(-3), MinValue: Int64(-10), MaxValue: Int64(0)}, nil, []step{{3, blk(0, -3, 3), ""}, {5, blk(-9, -3, 1), ""},
			{1, Block{}, `nextval: reached minimum value of sequence "s" (-10)`}}},
		{"cycle ascending", Clauses{MinValue: Int64(1), MaxValue: Int64(5), Cycle: Bool(true)}, nil, []step{{4, blk(1, 1, 4), ""}, {4, blk(5, 1, 1), ""}, {2, blk(1, 1, 2), ""}}},
		{"cycle descending", Clauses{Increment: Int64(-2), MinValue: Int64(1), MaxValue: Int64(6), Cycle: Bool(true)}, nil, []step{{5, blk(6, -2, 3), ""}, {1, blk(6, -2, 1), ""}}},
		{"cycle wraps to min not start", Clauses{MaxValue: Int64(5), Start: Int64(4), Cycle: Bool(true)}, nil, []step{{5, blk(4, 1, 2), ""}, {1, blk(1, 1, 1), ""}}},
		{"not called", Clauses{}, &Position{Last: 42}, []step{{2, blk(42, 1, 2), ""}}},
		{"near int64 max", Clauses{}, &Position{Last: math.MaxInt64 - 2, Called: true}, []step{{5, blk(math.MaxInt64-1, 1, 2), ""},
			{1, Block{}, `nextval: reached maximum value of sequence "s" (9223372036854775807)`}}},
		{"near int64 min", Clauses{Increment: Int64(-1)}, &Position{Last: math.MinInt64 + 1, Called: true}, []step{{5, blk(math.MinInt64, -1, 1), ""},
			{1, Block{}, `nextval: reached minimum value of sequence "s" (-9223372036854775808)`}}},
		{"huge increment", Clauses{Increment: Int64(math.MaxInt64), MinValue: Int64(math.MinInt64)}, &Position{Last: -1}, []step{{5, blk(-1, math.MaxInt64, 2), ""}}},
		{"min increment", Clauses{Increment: Int64(math.MinInt64)}, &Position{Last: -1}, []step{{5, blk(-1, math.MinInt64, 1), ""}}},
		{"whole range", Clauses{MinValue: Int64(math.MinInt64)}, &Position{Last: math.MinInt64}, []step{{math.MaxInt64, blk(math.MinInt64, 1, math.MaxInt64), ""}}},
		{"smallint", Clauses{Type: TypeOf(Smallint)}, &Position{Last: 32760, Called: true}, []step{{100, blk(32761, 1, 7), ""}}},
		{"negative max", Clauses{Increment: Int64(5), MinValue: Int64(-20), MaxValue: Int64(-3)}, nil, []step{{10, blk(-20, 5, 4), ""},
			{1, Block{}, `nextval: reached maximum value of sequence "s" (-3)`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := mustSpec(t, tt.c)
			pos := spec.Initial()
			if tt.pos != nil {
				pos = *tt.pos
			}
			for i, st := range tt.steps {
				b, next, err := spec.Reserve("s", pos, st.n)
				if st.wantErr != "" {
					if err == nil || err.Error() != st.wantErr || !errors.Is(err, ErrLimit) {
						t.Fatalf("step %d: err = %v, want %q", i, err, st.wantErr)
					}
					if next != pos {
						t.Fatalf("step %d: position moved on error", i)
					}
					continue
				}
				if err != nil || b != st.want {
					t.Fatalf("step %d: Reserve(%d) = %+v, %v; want %+v", i, st.n, b, err, st.want)
				}
				if next != (Position{Last: b.Last(), Called: true}) {
					t.Fatalf("step %d: position %+v, want last %d called", i, next, b.Last())
				}
				pos = next
			}
		})
	}
}

func TestBlockContainsTail(t *testing.T) {
	b := Block{First: 10, Step: -3, Count: 4} // 10 7 4 1
	for v, want := range map[int64]bool{10: true, 7: true, 1: true, -2: false, 13: false, 8: false} {
		if got := b.Contains(v); got != want {
			t.Errorf("Contains(%d) = %v", v, got)
		}
	}
	if got := b.Tail(2); got != (blk(4, -3, 2)) {
		t.Errorf("Tail(2) = %+v", got)
	}
	if got := b.Tail(4); got.Count != 0 {
		t.Errorf("Tail(4) = %+v", got)
	}
}

func TestRelease(t *testing.T) {
	spec := mustSpec(t, Clauses{})
	b1, p1, _ := spec.Reserve("s", spec.Initial(), 10) // 1..10
	b2, p2, _ := spec.Reserve("s", p1, 10)             // 11..20

	// Release the tail of the last block, then the tail of the one before.
	p, ok := spec.Release(p2, b2.Tail(4)) // 15..20
	if !ok || p != (Position{Last: 14, Called: true}) {
		t.Fatalf("release tail of b2: %+v %v", p, ok)
	}
	if _, ok := spec.Release(p, b1.Tail(5)); ok {
		t.Fatal("released a block that does not end where the position is")
	}
	p, ok = spec.Release(p, Block{First: 11, Step: 1, Count: 4}) // 11..14, contiguous
	if !ok || p != (Position{Last: 10, Called: true}) {
		t.Fatalf("chained release: %+v %v", p, ok)
	}
	next, _, _ := spec.Reserve("s", p, 1)
	if next.First != 11 {
		t.Fatalf("after release next = %d, want 11", next.First)
	}
	// Somebody reserved after b1: releasing b1's tail is refused.
	if _, ok := spec.Release(p2, b1.Tail(5)); ok {
		t.Fatal("released a tail someone reserved after")
	}
	// A whole first block goes back to "not called".
	if p, ok := spec.Release(p1, b1); !ok || p != spec.Initial() {
		t.Fatalf("release of the first block: %+v %v", p, ok)
	}
}

func TestReleaseAcrossCycle(t *testing.T) {
	spec := mustSpec(t, Clauses{MaxValue: Int64(2), Cycle: Bool(true)})
	active, p1, _ := spec.Reserve("s", spec.Initial(), 5) // 1, 2
	standby, p2, _ := spec.Reserve("s", p1, 5)            // wraps: 1, 2
	p, ok := spec.Release(p2, standby)
	if !ok || p != (Position{Last: 1}) {
		t.Fatalf("release of the wrapped block: %+v %v", p, ok)
	}
	// 1 was served from the active block; its tail 2 goes back too.
	p, ok = spec.Release(p, active.Tail(1))
	if !ok || p != (Position{Last: 1, Called: true}) {
		t.Fatalf("release of the tail before the wrap: %+v %v", p, ok)
	}
	if b, _, _ := spec.Reserve("s", p, 1); b.First != 2 {
		t.Fatalf("next value %d, want 2", b.First)
	}
}

func TestRemaining(t *testing.T) {
	spec := mustSpec(t, Clauses{MaxValue: Int64(10)})
	for _, tt := range []struct {
		pos  Position
		want uint64
	}{{spec.Initial(), 10}, {Position{5, true}, 5}, {Position{10, true}, 0}, {Position{10, false}, 1}} {
		if got := spec.Remaining(tt.pos); got != tt.want {
			t.Errorf("Remaining(%+v) = %d, want %d", tt.pos, got, tt.want)
		}
	}
	if got := mustSpec(t, Clauses{MinValue: Int64(math.MinInt64)}).Remaining(Position{Last: math.MinInt64}); got != math.MaxUint64 {
		t.Errorf("Remaining(whole range) = %d", got)
	}
}

// FuzzReserve checks the block arithmetic against a big-integer model of
// PostgreSQL's nextval: blocks never leave [min, max], never overlap within a
// cycle, are truncated only at a bound, and never overflow.
func FuzzReserve(f *testing.F) {
	f.Add(uint8(0), int64(1), int64(1), int64(100), int64(1), false, int64(1), false, int64(7), int64(50), int64(3))
	f.Add(uint8(1), int64(-3), int64(-100), int64(-1), int64(-1), true, int64(-50), true, int64(9), int64(1), int64(100))
	f.Add(uint8(0), int64(math.MaxInt64), int64(math.MinInt64), int64(math.MaxInt64), int64(0), true, int64(0), true, int64(3), int64(2), int64(1))
	f.Add(uint8(2), int64(math.MinInt64), int64(math.MinInt64), int64(math.MaxInt64), int64(math.MaxInt64), false, int64(math.MaxInt64), false, int64(math.MaxInt64), int64(2), int64(5))
	f.Fuzz(func(t *testing.T, typ uint8, inc, lo, hi, start int64, cycle bool, last int64, called bool, n1, n2, n3 int64) {
		spec, _, err := Clauses{Type: TypeOf(Type(typ % 3)), Increment: Int64(inc), MinValue: Int64(lo), MaxValue: Int64(hi), Start: Int64(start), Cycle: Bool(cycle)}.Create()
		if err != nil {
			return
		}
		pos := Position{Last: last, Called: called}
		if last < spec.Min || last > spec.Max {
			return
		}
		ref := new(big.Int).SetInt64(last)
		refCalled := called
		bigMin, bigMax, bigInc := big.NewInt(spec.Min), big.NewInt(spec.Max), big.NewInt(spec.Increment)
		for _, n := range []int64{n1, n2, n3, n1, n2} {
			b, next, err := spec.Reserve("s", pos, n)
			// Model: the next value PostgreSQL would return.
			want := new(big.Int).Set(ref)
			wrapped := false
			if refCalled {
				want.Add(want, bigInc)
				if want.Cmp(bigMin) < 0 || want.Cmp(bigMax) > 0 {
					if !spec.Cycle {
						if err == nil || !errors.Is(err, ErrLimit) {
							t.Fatalf("want limit error, got %+v %v", b, err)
						}
						return
					}
					wrapped = true
					if spec.Increment > 0 {
						want.Set(bigMin)
					} else {
						want.Set(bigMax)
					}
				}
			}
			if err != nil {
				t.Fatalf("Reserve(%d) from %+v: %v", n, pos, err)
			}
			if b.First != want.Int64() || !want.IsInt64() {
				t.Fatalf("first = %d, want %s (wrapped %v)", b.First, want, wrapped)
			}
			if b.Step != spec.Increment || b.Count < 1 || b.Count > max(n, 1) {
				t.Fatalf("block %+v for n=%d", b, n)
			}
			lastV := new(big.Int).Mul(big.NewInt(b.Count-1), bigInc)
			lastV.Add(lastV, want)
			if !lastV.IsInt64() || lastV.Int64() != b.Last() || lastV.Cmp(bigMin) < 0 || lastV.Cmp(bigMax) > 0 {
				t.Fatalf("last of %+v = %d, model %s, bounds [%d, %d]", b, b.Last(), lastV, spec.Min, spec.Max)
			}
			if b.Count < max(n, 1) {
				// Truncated: one more step must leave the bounds.
				after := new(big.Int).Add(lastV, bigInc)
				if after.Cmp(bigMin) >= 0 && after.Cmp(bigMax) <= 0 {
					t.Fatalf("block %+v truncated before a bound", b)
				}
			}
			if next != (Position{Last: b.Last(), Called: true}) {
				t.Fatalf("next position %+v after %+v", next, b)
			}
			pos, ref, refCalled = next, lastV, true
		}
	})
}

// blk is a block with the store's incarnation left unsaid (Gen 0), as
// Spec.Reserve computes it.
func blk(first, step, count int64) Block { return Block{First: first, Step: step, Count: count} }

func TestBlockTailKeepsGen(t *testing.T) {
	b := Block{First: 1, Step: 1, Count: 10, Gen: 7}
	if got := b.Tail(4); got != (Block{First: 5, Step: 1, Count: 6, Gen: 7}) {
		t.Errorf("Tail(4) = %+v", got)
	}
	if got := b.Tail(10); got.Count != 0 || got.Gen != 7 {
		t.Errorf("Tail(10) = %+v", got)
	}
}

// TestReserveZeroIncrement: a spec with INCREMENT 0, which only a damaged
// store record has, is an error, not a division by zero.
func TestReserveZeroIncrement(t *testing.T) {
	spec := DefaultSpec()
	spec.Increment = 0
	if _, _, err := spec.Reserve("s", spec.Initial(), 10); !errors.Is(err, ErrInvalid) {
		t.Errorf("Reserve with INCREMENT 0: %v, want ErrInvalid", err)
	}
	if got := spec.Remaining(spec.Initial()); got != 0 {
		t.Errorf("Remaining with INCREMENT 0 = %d", got)
	}
}
