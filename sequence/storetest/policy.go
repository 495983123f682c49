package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// testPolicy checks the cache policy ([sequence.Spec.Policy]): stored by
// Create, returned by Describe and List, carried by every block Reserve
// returns, changed field by field by Alter (a zero field resets it), kept
// by SQL clauses, SetVal and Rename, and an invalid one refused with
// nothing changed.
func testPolicy(t *testing.T, st sequence.Store, n namer) {
	ctx := t.Context()
	a, b := n.name("a"), n.name("b")
	m := create(t, st, a, sequence.Clauses{Policy: &sequence.PolicyClauses{
		Buffer: sequence.Duration(30 * time.Second), MaxBlock: sequence.Int64(100000),
	}})
	want := sequence.Policy{Buffer: 30 * time.Second, MaxBlock: 100000}
	if m.spec.Policy != want {
		t.Fatalf("bad test: model policy %+v", m.spec.Policy)
	}
	describe(t, st, m)
	if blk, _ := reserveModel(t, st, m, 3); blk.Policy != want {
		t.Errorf("Reserve: block policy %+v, want %+v", blk.Policy, want)
	}

	alter := func(c sequence.Clauses) {
		t.Helper()
		spec, pos, err := c.Alter(m.spec, m.pos)
		if err != nil {
			t.Fatalf("bad test clauses: %v", err)
		}
		info, err := st.Alter(ctx, m.name, c)
		if err != nil {
			t.Fatalf("Alter(%s): %v", m.name, err)
		}
		m.spec, m.pos = spec, pos
		if !info.Spec.Equal(m.spec) || info.Position != m.pos {
			t.Fatalf("Alter(%s) returned spec %+v pos %+v, want %+v %+v", m.name, info.Spec, info.Position, m.spec, m.pos)
		}
		describe(t, st, m)
		// The next block carries the new policy: what makes a change reach
		// every process at its next reservation.
		if blk, _ := reserveModel(t, st, m, 2); blk.Policy != m.spec.Policy {
			t.Errorf("Reserve after Alter: block policy %+v, want %+v", blk.Policy, m.spec.Policy)
		}
	}
	alter(sequence.Clauses{Policy: &sequence.PolicyClauses{MinBlock: sequence.Int64(1000), Revalidate: sequence.Duration(5 * time.Second)}})
	if want := (sequence.Policy{Buffer: 30 * time.Second, MinBlock: 1000, MaxBlock: 100000, Revalidate: 5 * time.Second}); m.spec.Policy != want {
		t.Fatalf("bad test: model policy %+v, want %+v", m.spec.Policy, want)
	}
	alter(sequence.Clauses{Increment: sequence.Int64(3), Cache: sequence.Int64(20)}) // SQL clauses keep it
	if _, err := st.SetVal(ctx, m.name, 100, true); err != nil {
		t.Fatalf("SetVal: %v", err)
	}
	m.pos = sequence.Position{Last: 100, Called: true}
	describe(t, st, m)

	// An invalid policy changes nothing.
	_, err := st.Alter(ctx, m.name, sequence.Clauses{Policy: &sequence.PolicyClauses{MinBlock: sequence.Int64(200000)}})
	if !errors.Is(err, sequence.ErrInvalid) {
		t.Errorf("Alter with min block above max block: %v, want ErrInvalid", err)
	}
	describe(t, st, m)

	if err := st.Rename(ctx, a, b); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	m.name = b
	describe(t, st, m)
	list, err := st.List(ctx)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	found := false
	for _, info := range list {
		if info.Name == b {
			found = true
			if info.Spec.Policy != m.spec.Policy {
				t.Errorf("List: %s policy %+v, want %+v", b, info.Spec.Policy, m.spec.Policy)
			}
		}
	}
	if !found {
		t.Errorf("List: %s missing", b)
	}

	// Zero fields reset to the process defaults.
	zero := time.Duration(0)
	alter(sequence.Clauses{Policy: &sequence.PolicyClauses{Buffer: &zero, MinBlock: sequence.Int64(0), MaxBlock: sequence.Int64(0), Revalidate: &zero}})
	if !m.spec.Policy.IsZero() {
		t.Fatalf("bad test: policy %+v after reset", m.spec.Policy)
	}
}
