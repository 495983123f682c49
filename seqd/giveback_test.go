package seqd_test

import (
	"context"
	"testing"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/sequence"
)

// TestGiveBackAcrossLaps: a client's cache over a caching server, on a
// sequence that cycles every two values, gives its unused values back
// before each ALTER; the server takes them back across the lap boundary,
// so the values are PostgreSQL's: 1 2 (limit) 1 2 1 — NO CYCLE — 2.
func TestGiveBackAcrossLaps(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	spec, pos, _ := sequence.Clauses{MaxValue: sequence.Int64(2)}.Create()
	if err := st.Create(ctx, "s", spec, pos); err != nil {
		t.Fatal(err)
	}
	_, hs := serve(t, seqd.Config{Store: st, Open: true})
	cs := open(t, storeURL(hs, ""))
	c := seqcache.New(cs)
	defer c.Close()
	var got []int64
	next := func() {
		v, err := c.Next(ctx, "s")
		if err != nil {
			got = append(got, 0)
			return
		}
		got = append(got, v)
	}
	alter := func(cycle bool) {
		err := c.Change(ctx, "s", func(ctx context.Context) error {
			_, err := cs.Alter(ctx, "s", sequence.Clauses{Cycle: sequence.Bool(cycle)})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	next()
	next()
	next()
	alter(true)
	next()
	next()
	next()
	alter(false)
	next()
	want := []int64{1, 2, 0, 1, 2, 1, 2}
	if len(got) != len(want) {
		t.Fatalf("values %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("values %v, want %v (0: the limit's error)", got, want)
		}
	}
}
