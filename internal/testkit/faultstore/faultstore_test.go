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
