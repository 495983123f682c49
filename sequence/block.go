package sequence

import "math"

// Block is a run of sequence values: First, First+Step, ... Count values in
// all, never crossing MINVALUE or MAXVALUE (a CYCLE wrap starts a new block).
// Step is the sequence's increment.
type Block struct {
	First int64
	Step  int64
	Count int64
	// Policy is the sequence's cache policy as stored when the block was
	// reserved ([Spec.Policy]): [Spec.Reserve] copies it from the spec, so
	// every store returns the current policy with every block and a cache
	// picks a change up at its next reservation. Block arithmetic ignores
	// it ([Block.Tail] drops it).
	Policy Policy
	// Gen is the incarnation of the sequence the block was reserved from
	// ([Info.Gen]): a sequence dropped and created again under the same name
	// has another. 0 means the store does not say. [Spec.Reserve] leaves it
	// 0; a store's Reserve sets it.
	Gen uint64
}

// Value returns the i-th value of the block, 0 <= i < Count.
func (b Block) Value(i int64) int64 {
	return int64(uint64(b.First) + uint64(i)*uint64(b.Step))
}

// Last returns the block's last value.
func (b Block) Last() int64 { return b.Value(b.Count - 1) }

// Tail returns the block's values from index i on (empty if i >= Count).
func (b Block) Tail(i int64) Block {
	if i >= b.Count {
		return Block{Step: b.Step, Gen: b.Gen}
	}
	return Block{First: b.Value(i), Step: b.Step, Count: b.Count - i, Gen: b.Gen}
}

// Contains reports whether v is one of the block's values.
func (b Block) Contains(v int64) bool {
	if b.Count <= 0 {
		return false
	}
	var off, step uint64
	if b.Step > 0 {
		if v < b.First {
			return false
		}
		off, step = uint64(v)-uint64(b.First), uint64(b.Step)
	} else {
		if v > b.First {
			return false
		}
		off, step = uint64(b.First)-uint64(v), -uint64(b.Step)
	}
	return off%step == 0 && off/step < uint64(b.Count)
}

// Reserve computes the next block of at most n values (n < 1 counts as 1) for
// a sequence at pos, and the position after it: nextval n times in one step.
// The block stops at MAXVALUE (MINVALUE when descending); the next call then
// wraps to MINVALUE (MAXVALUE) with CYCLE, or fails with PostgreSQL's
// "reached maximum value" error naming the sequence without. No intermediate
// result overflows int64, whatever the bounds and increment.
func (s Spec) Reserve(name string, pos Position, n int64) (Block, Position, error) {
	if n < 1 {
		n = 1
	}
	if s.Increment == 0 {
		// Only a spec no CREATE or ALTER would make (one a store read
		// from a damaged record): there would be no step to divide by.
		return Block{}, pos, invalidf("INCREMENT must not be zero")
	}
	inc := s.Increment
	first := pos.Last
	if pos.Called {
		// PostgreSQL's overflow-safe bound tests from nextval_internal.
		if inc > 0 {
			if (s.Max >= 0 && pos.Last > s.Max-inc) || (s.Max < 0 && pos.Last+inc > s.Max) {
				if !s.Cycle {
					return Block{}, pos, LimitError(name, s)
				}
				first = s.Min
			} else {
				first = pos.Last + inc
			}
		} else {
			if (s.Min < 0 && pos.Last < s.Min-inc) || (s.Min >= 0 && pos.Last+inc < s.Min) {
				if !s.Cycle {
					return Block{}, pos, LimitError(name, s)
				}
				first = s.Max
			} else {
				first = pos.Last + inc
			}
		}
	} else if first < s.Min || first > s.Max {
		// Only reachable through a position written by hand; PostgreSQL's
		// own checks keep it in bounds.
		return Block{}, pos, LimitError(name, s)
	}

	// Steps available after first, in unsigned arithmetic: the distance
	// between two int64s always fits in a uint64.
	var dist, step uint64
	if inc > 0 {
		dist, step = uint64(s.Max)-uint64(first), uint64(inc)
	} else {
		dist, step = uint64(first)-uint64(s.Min), -uint64(inc)
	}
	count := n
	if more := dist / step; more < uint64(n-1) {
		count = int64(more) + 1
	}
	b := Block{First: first, Step: inc, Count: count, Policy: s.Policy}
	return b, Position{Last: b.Last(), Called: true}, nil
}

// Remaining returns how many values nextval can still return from pos before
// reaching the bound (ignoring CYCLE), saturating at math.MaxUint64.
func (s Spec) Remaining(pos Position) uint64 {
	b, _, err := s.Reserve("", pos, math.MaxInt64)
	if err != nil {
		return 0
	}
	var dist, step uint64
	if s.Increment > 0 {
		dist, step = uint64(s.Max)-uint64(b.First), uint64(s.Increment)
	} else {
		dist, step = uint64(b.First)-uint64(s.Min), -uint64(s.Increment)
	}
	if dist/step == math.MaxUint64 {
		return math.MaxUint64
	}
	return dist/step + 1
}

// Release returns the position a store should move to when a process hands
// back unused, the unused tail of the block it was last given, and whether
// that is allowed: only if nobody reserved after it, that is, pos is still the
// end of unused (or the start of a later tail already handed back). The new
// position is the one PostgreSQL would hold had the tail never been reserved:
// the value before it, called, or the tail's first value, not called, when
// the tail starts a sequence or a CYCLE lap.
func (s Spec) Release(pos Position, unused Block) (Position, bool) {
	if unused.Count <= 0 || unused.Step != s.Increment || unused.First < s.Min || unused.First > s.Max {
		return pos, false
	}
	last := unused.Last()
	atEnd := pos == Position{Last: last, Called: true}
	if !atEnd && !pos.Called {
		// A later tail was handed back first and left the position at its
		// first value, not called: the value after last, or the start of
		// the next lap of a CYCLE sequence.
		if next, overflow := addOverflows(last, unused.Step); !overflow && next >= s.Min && next <= s.Max {
			atEnd = pos.Last == next
		} else if s.Cycle {
			wrap := s.Min
			if s.Increment < 0 {
				wrap = s.Max
			}
			atEnd = pos.Last == wrap
		}
	}
	if !atEnd {
		return pos, false
	}
	if prev, overflow := addOverflows(unused.First, -unused.Step); unused.Step != math.MinInt64 && !overflow && prev >= s.Min && prev <= s.Max {
		return Position{Last: prev, Called: true}, true
	}
	return Position{Last: unused.First, Called: false}, true
}

func addOverflows(a, b int64) (int64, bool) {
	c := a + b
	return c, (b > 0 && c < a) || (b < 0 && c > a)
}
