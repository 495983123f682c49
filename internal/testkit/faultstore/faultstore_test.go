package faultstore_test

import (
	"errors"
	"testing"

	"github.com/seqshim/seqshim/internal/testkit/faultstore"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sequence/storetest"
)

// TestContract: with no fault set, Store is a transparent store.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sequence.Store { return faultstore.New(memstore.New()) })
}

func TestFaults(t *testing.T) {
	ctx := t.Context()
	mem := memstore.New()
	f := faultstore.New(mem)
	if err := f.Create(ctx, "s", sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	reserve := func() (int64, error) {
		b, err := f.Reserve(ctx, "s", 10)
		return b.First, err
	}
	steps := []struct {
		name      string
		setup     func()
		wantFirst int64
		wantErr   error
	}{
		{"ok", func() {}, 1, nil},
		{"before", func() { f.FailNext(faultstore.OpReserve, boom, false) }, 0, boom},
		{"unaffected by before", func() {}, 11, nil},
		{"applied", func() { f.FailNext("", boom, true) }, 0, boom},
		{"gap after applied", func() {}, 31, nil},
		{"other op queued", func() { f.FailNext(faultstore.OpDrop, boom, false) }, 41, nil},
		{"down", func() { f.SetDown(boom) }, 0, boom},
		{"up", func() { f.SetDown(nil) }, 51, nil},
	}
	for _, s := range steps {
		s.setup()
		first, err := reserve()
		if !errors.Is(err, s.wantErr) || first != s.wantFirst {
			t.Fatalf("%s: Reserve = %d, %v; want %d, %v", s.name, first, err, s.wantFirst, s.wantErr)
		}
	}
	if err := f.Drop(ctx, "s"); !errors.Is(err, boom) {
		t.Errorf("queued Drop fault: %v", err)
	}
	if got := f.Calls(faultstore.OpReserve); got != len(steps) {
		t.Errorf("Calls(Reserve) = %d, want %d", got, len(steps))
	}
}

// TestMembershipFaults: Attach and Detach take faults like every other
// operation, applied or not.
func TestMembershipFaults(t *testing.T) {
	ctx := t.Context()
	f := faultstore.New(memstore.New())
	spec := sequence.DefaultSpec()
	spec.Members = []sequence.Member{{DB: "a"}}
	if err := f.Create(ctx, "s", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	f.FailNext(faultstore.OpAttach, boom, true)
	if _, err := f.Attach(ctx, "s", sequence.Member{DB: "b"}, spec); !errors.Is(err, boom) {
		t.Fatalf("Attach with an applied fault: %v, want boom", err)
	}
	f.FailNext(faultstore.OpDetach, boom, false)
	if _, err := f.Detach(ctx, "s", "a"); !errors.Is(err, boom) {
		t.Fatalf("Detach with a fault: %v, want boom", err)
	}
	info, err := f.Describe(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if got := sequence.MemberDBs(info.Spec.Members); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("members %v, want [a b]: the Attach applied, the Detach not", got)
	}
	if f.Calls(faultstore.OpAttach) != 1 || f.Calls(faultstore.OpDetach) != 1 {
		t.Errorf("Calls: Attach %d, Detach %d; want 1 each", f.Calls(faultstore.OpAttach), f.Calls(faultstore.OpDetach))
	}
}
