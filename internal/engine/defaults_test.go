package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// overtakingStore is a store whose every List is overtaken by column DDL
// of the process (forgetDefaults while it reads), as a busy process's
// sessions committing table DDL all the time may do.
type overtakingStore struct {
	*memstore.Store
	eng   atomic.Pointer[Engine]
	lists atomic.Int64
}

func (s *overtakingStore) List(ctx context.Context) ([]sequence.Info, error) {
	s.lists.Add(1)
	infos, err := s.Store.List(ctx)
	if e := s.eng.Load(); e != nil {
		e.forgetDefaults()
	}
	return infos, err
}

// TestDefaultsOvertaken checks that a statement gets the column defaults
// committed before it even when column DDL overtakes every read of them:
// the load gives up publishing them, not using them.
func TestDefaultsOvertaken(t *testing.T) {
	ctx := context.Background()
	st := &overtakingStore{Store: memstore.New()}
	defs := []sequence.ColumnDefault{{Table: "orders", Column: "id"}}
	spec, pos, _ := sequence.Clauses{Defaults: &defs}.Create()
	if err := st.Create(ctx, "orders_id_seq", spec, pos); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, Config{Store: st, Dialect: rewrite.Postgres})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	st.eng.Store(e)
	s, err := NewSession[AnyArgs](ctx, e, &fakeDB{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, sent, err := run(t, s, "INSERT INTO orders (v) VALUES ('x')")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sent, "id") {
			t.Fatalf("INSERT %d sent %q: the column default is not written out", i, sent)
		}
		if ts := s.defs.set.Load(); ts != nil {
			t.Fatalf("INSERT %d: a read that column DDL overtook was published", i)
		}
	}
	if n := st.lists.Load(); n < 3*maxDefaultsReads {
		t.Errorf("the store's column defaults were read %d times; want each INSERT to read them again", n)
	}
}
