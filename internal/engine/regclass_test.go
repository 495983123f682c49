package engine

import (
	"context"
	"testing"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// TestQuoteIdentifier: PostgreSQL 15's quote_ident, as recorded on it
// (SELECT quote_ident(…)).
func TestQuoteIdentifier(t *testing.T) {
	for in, want := range map[string]string{
		"s": "s", "_a": "_a", "name": "name", "text": "text", "system_user": "system_user",
		"bigint": `"bigint"`, "between": `"between"`, "int": `"int"`, "user": `"user"`, "varchar": `"varchar"`,
		"xmltable": `"xmltable"`, "authorization": `"authorization"`,
		"a$b": `"a$b"`, "1a": `"1a"`, "é": `"é"`, `a"b`: `"a""b"`, "My Seq": `"My Seq"`, "Ab": `"Ab"`, "": `""`,
	} {
		if got := quoteIdentifier(in); got != want {
			t.Errorf("quoteIdentifier(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestRegclassRows: a statement of regclass values of store sequences is
// answered here in text columns, the name printed as PostgreSQL prints
// it; one with another name is sent as it is.
func TestRegclassRows(t *testing.T) {
	s := newSession(t, nil)
	ev, sql, err := run(t, s, "SELECT 's'::regclass, 'public.s'::regclass::text AS t, $1::regclass::name, $2::regclass", "s", nil)
	if err != nil || ev.Send || sql != "" || ev.First == nil || !ev.First.Text() {
		t.Fatalf("ev %+v, sql %q, err %v", ev, sql, err)
	}
	r := ev.First
	if r.NumRows() != 1 || r.TypeName(0) != "2205" || r.TypeName(1) != "TEXT" || r.TypeName(2) != "NAME" {
		t.Errorf("%d rows, types %s %s %s", r.NumRows(), r.TypeName(0), r.TypeName(1), r.TypeName(2))
	}
	if _, _, ok := r.Next(); ok {
		t.Error("Next gave a row of int8 values for text columns")
	}
	texts, nulls, ok := r.NextText()
	if !ok || len(texts) != 4 || texts[0] != "s" || texts[1] != "s" || texts[2] != "s" || nulls == nil || nulls[2] || !nulls[3] {
		t.Errorf("row %q, nulls %v, ok %v; want s s s NULL", texts, nulls, ok)
	}
	if _, _, ok := r.NextText(); ok {
		t.Error("a second row")
	}
	r.Close()
	// The closed rows serve the next statement, of int8 columns.
	ev, _, _ = run(t, s, "SELECT nextval('s')")
	if ev.First != r || ev.First.Text() || rowsOf(ev.First) != "[1]" {
		t.Errorf("rows after regclass rows: reused %v, text %v, %s", ev.First == r, ev.First.Text(), rowsOf(ev.First))
	}
	for _, q := range []string{"SELECT 't'::regclass", "SELECT 's'::regclass, 't'::regclass::text"} {
		if ev, sql, err := run(t, s, q); err != nil || ev.First != nil || sql != q {
			t.Errorf("%s: sent %q, rows %v, err %v; want it sent as it is", q, sql, ev.First, err)
		}
	}
	if ev, sql, err := run(t, s, "SELECT $1::regclass", "123"); err != nil || ev.First != nil || sql == "" {
		t.Errorf("an OID: sent %q, err %v; want it sent", sql, err)
	}
}

// TestRegclassAfterPathChange: after a statement that may change the
// search_path in the same string, regclass values go to the database,
// which prints them with its new path (and the string is not refused, as
// one with an unqualified sequence call is).
func TestRegclassAfterPathChange(t *testing.T) {
	s := newSession(t, nil)
	q := "SET search_path = app, public; SELECT 's'::regclass"
	ev, sql, err := run(t, s, q)
	if err != nil || ev.First != nil || sql != q {
		t.Errorf("sent %q, rows %v, err %v; want it sent as it is", sql, ev.First, err)
	}
}

// describeCounter is a memory store counting Describe calls.
type describeCounter struct {
	*memstore.Store
	n int
}

func (c *describeCounter) Describe(ctx context.Context, name string) (sequence.Info, error) {
	c.n++
	return c.Store.Describe(ctx, name)
}

// TestRegclassMisses: a name found not to be a store sequence goes to the
// database again without a store read, until the engine applies sequence
// DDL or the search_path changes.
func TestRegclassMisses(t *testing.T) {
	ctx := context.Background()
	st := &describeCounter{Store: memstore.New()}
	e, err := Open(ctx, Config{Store: st, Dialect: rewrite.Postgres})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := NewSession[AnyArgs](ctx, e, &fakeDB{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT 'tab'::regclass", "SELECT 'app.tab'::regclass", "SELECT $1::regclass"} {
		st.n = 0
		for range 3 {
			if _, sql, err := run(t, s, q, "x"); err != nil || sql != q {
				t.Fatalf("%s: sent %q, %v", q, sql, err)
			}
		}
		if st.n != 1 {
			t.Errorf("%s three times: %d store reads, want 1", q, st.n)
		}
	}
	if _, _, err := run(t, s, "CREATE SEQUENCE tab"); err != nil {
		t.Fatal(err)
	}
	ev, _, err := run(t, s, "SELECT 'tab'::regclass")
	if err != nil || ev.First == nil {
		t.Fatalf("after CREATE SEQUENCE tab: rows %v, %v; want it answered here", ev.First, err)
	}
	if texts, _, _ := ev.First.NextText(); len(texts) != 1 || texts[0] != "tab" {
		t.Errorf("row %q, want tab", texts)
	}
}
