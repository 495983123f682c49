package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seqshim/seqshim/internal/testkit/faultstore"
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

// TestHereStoreDown checks that nextval's membership check does not make a
// store outage fail nextval: a sequence checked before a DDL of the
// process, or warmed but never checked, is served from the cache's block
// while the store cannot be read; one another database alone has still
// fails with 42P01.
func TestHereStoreDown(t *testing.T) {
	ctx := context.Background()
	db := &fakeDB{}
	me, other := db.identity(), "7000000000000000001/16385/other"
	mem := memstore.New()
	for _, c := range []struct {
		name    string
		members []sequence.Member
	}{{"mine", []sequence.Member{{DB: me}}}, {"warmed", []sequence.Member{{DB: me}}}, {"theirs", []sequence.Member{{DB: other}}}} {
		spec, pos, _ := sequence.Clauses{Policy: &sequence.PolicyClauses{MinBlock: sequence.Int64(100)}}.Create()
		spec.Members = c.members
		if err := mem.Create(ctx, c.name, spec, pos); err != nil {
			t.Fatal(err)
		}
	}
	st := faultstore.New(mem)
	e, err := Open(ctx, Config{Store: st, Dialect: rewrite.Postgres, Warm: []string{"warmed"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s, err := NewSession[AnyArgs](ctx, e, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, s, "SELECT nextval('mine')"); err != nil {
		t.Fatal(err)
	}
	e.ddlGen.Add(1) // DDL of the process: the check is made again
	st.SetDown(errors.New("connection refused"))
	for _, name := range []string{"mine", "warmed", "mine"} {
		r, _, err := run(t, s, "SELECT nextval('"+name+"')")
		if err != nil {
			t.Fatalf("nextval('%s') with the store down: %v", name, err)
		}
		if got := rowsOf(r.First); got == "" {
			t.Fatalf("nextval('%s'): no row", name)
		}
	}
	st.SetDown(nil)
	_, _, err = run(t, s, "SELECT nextval('theirs')")
	var se interface{ SQLState() string }
	if !errors.As(err, &se) || se.SQLState() != sequence.CodeUndefinedTable {
		t.Fatalf("nextval of another database's sequence: %v, want 42P01", err)
	}
}
