package driver

import (
	"context"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// statementsSent are the texts the fake inner driver received, without
// seqshim's own catalog queries (the search_path, schemas).
func statementsSent(fs *fakeSetup) []string {
	var out []string
	for _, q := range fs.fake.Rec.Queries() {
		if isCatalogQuery(q) {
			continue
		}
		out = append(out, q)
	}
	return out
}

// isCatalogQuery reports whether q is one of seqshim's catalog queries,
// which all name pg_catalog's objects qualified.
func isCatalogQuery(q string) bool { return strings.Contains(q, "pg_catalog.") }

// pathReads counts seqshim's reads of the search_path so far.
func pathReads(fs *fakeSetup) int {
	n := 0
	for _, q := range fs.fake.Rec.Queries() {
		if strings.Contains(q, "string_agg") {
			n++
		}
	}
	return n
}

// TestSearchPathNoRoundTrip: the search_path is read when the connection
// opens; repeated nextval of an unqualified name then sends nothing to the
// database, and a SET of the path costs one read before the next call.
func TestSearchPathNoRoundTrip(t *testing.T) {
	fs := newFakeSetup(t)
	ctx := context.Background()
	spec, pos, _ := sequence.Clauses{Start: sequence.Int64(100)}.Create()
	if err := fs.store.Create(ctx, "tenant_7.s", spec, pos); err != nil {
		t.Fatal(err)
	}
	fs.fake.SetSearchPath("tenant_7, public", "tenant_7", "public")
	c, _ := fs.connect(t)
	if n := pathReads(fs); n != 1 {
		t.Fatalf("%d reads of the search_path at connect, want 1", n)
	}
	before := fs.fake.Rec.Calls()
	for i := range 50 {
		if v, err := queryInt(t, c, "SELECT nextval('s')"); err != nil || v != int64(100+2*i) {
			t.Fatalf("nextval %d: %d, %v; want %d (tenant_7.s)", i, v, err, 100+2*i)
		}
		if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (nextval('s'))", nil); err != nil {
			t.Fatal(err)
		}
	}
	after := fs.fake.Rec.Calls()
	if after.Query != before.Query || after.Prepare != before.Prepare || after.StmtQuery != before.StmtQuery {
		t.Errorf("nextval of an unqualified name reached the database: %+v → %+v", before, after)
	}
	if after.Exec != before.Exec+50 {
		t.Errorf("%d execs, want the 50 INSERTs", after.Exec-before.Exec)
	}

	// SET search_path: one read before the next call, then none.
	if _, err := c.ExecContext(ctx, "SET search_path TO public", nil); err != nil {
		t.Fatal(err)
	}
	fs.fake.SetSearchPath("public", "tenant_7", "public") // what the database now says
	for range 3 {
		if v, err := queryInt(t, c, "SELECT nextval('s')"); err != nil || v > 10 {
			t.Fatalf("nextval after SET search_path TO public: %d, %v; want public's s", v, err)
		}
	}
	if n := pathReads(fs); n != 2 {
		t.Errorf("%d reads of the search_path, want 2 (connect, after SET)", n)
	}
	// A statement that changes nothing costs nothing.
	if _, err := c.ExecContext(ctx, "SET statement_timeout = 0", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := queryInt(t, c, "SELECT nextval('s')"); err != nil {
		t.Fatal(err)
	}
	if n := pathReads(fs); n != 2 {
		t.Errorf("%d reads of the search_path after SET statement_timeout, want 2", n)
	}
}

// TestSearchPathTransactionEnd: a SET in a transaction is read again after
// the transaction ends through database/sql's Tx, and a prepared SET at
// each execution.
func TestSearchPathTransactionEnd(t *testing.T) {
	fs := newFakeSetup(t)
	ctx := context.Background()
	spec, pos, _ := sequence.Clauses{Start: sequence.Int64(100)}.Create()
	if err := fs.store.Create(ctx, "t1.s", spec, pos); err != nil {
		t.Fatal(err)
	}
	c, _ := fs.connect(t)
	tx, err := c.BeginTx(ctx, driver.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "SET LOCAL search_path TO t1", nil); err != nil {
		t.Fatal(err)
	}
	fs.fake.SetSearchPath("t1", "t1", "public")
	if v, err := queryInt(t, c, "SELECT nextval('s')"); err != nil || v != 100 {
		t.Fatalf("nextval in the transaction: %d, %v; want 100 (t1.s)", v, err)
	}
	fs.fake.SetSearchPath("") // the transaction ends: back to the default
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if v, err := queryInt(t, c, "SELECT nextval('s')"); err != nil || v != 1 {
		t.Fatalf("nextval after ROLLBACK: %d, %v; want 1 (public.s)", v, err)
	}

	st, err := c.PrepareContext(ctx, "SET search_path TO t1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reads := pathReads(fs)
	if _, err := st.(driver.StmtExecContext).ExecContext(ctx, nil); err != nil {
		t.Fatal(err)
	}
	fs.fake.SetSearchPath("t1", "t1", "public")
	if v, err := queryInt(t, c, "SELECT nextval('s')"); err != nil || v != 101 {
		t.Fatalf("nextval after a prepared SET: %d, %v; want 101 (t1.s)", v, err)
	}
	if n := pathReads(fs) - reads; n != 1 {
		t.Errorf("%d reads of the search_path after a prepared SET, want 1", n)
	}
}

// TestSearchPathSameString: a name without a schema after a change of the
// search_path in the same string cannot be resolved as PostgreSQL would.
func TestSearchPathSameString(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	_, err := c.ExecContext(context.Background(), "SET search_path TO t1; SELECT nextval('s')", nil)
	if pgCode(err) != "0A000" || !strings.Contains(err.Error(), "seqshim: ") {
		t.Errorf("SET then unqualified nextval in one string: %v, want 0A000", err)
	}
	if q := statementsSent(fs); len(q) != 0 {
		t.Errorf("sent %q", q)
	}
	if _, err := c.ExecContext(context.Background(), "SELECT nextval('s'); SET search_path TO t1", nil); err != nil {
		t.Errorf("unqualified nextval then SET: %v", err)
	}
	if _, err := c.ExecContext(context.Background(), "SET search_path TO t1; SELECT nextval('public.s')", nil); err != nil {
		t.Errorf("SET then qualified nextval: %v", err)
	}
}

// TestDropSchemaCascade: the store's sequences of a schema go after the
// database dropped it, also when the statement is prepared (each execution
// runs it to completion first).
func TestDropSchemaCascade(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		t.Run(fmt.Sprintf("prepared=%v", prepared), func(t *testing.T) {
			fs := newFakeSetup(t)
			ctx := context.Background()
			spec, pos, _ := sequence.Clauses{}.Create()
			if err := fs.store.Create(ctx, "t7.a", spec, pos); err != nil {
				t.Fatal(err)
			}
			fs.fake.SetSearchPath("", "public", "t7")
			c, _ := fs.connect(t)
			if _, err := c.ExecContext(ctx, "DROP SCHEMA t7", nil); pgCode(err) != "2BP01" {
				t.Errorf("DROP SCHEMA t7: %v, want 2BP01", err)
			}
			if _, err := fs.store.Describe(ctx, "t7.a"); err != nil {
				t.Fatalf("t7.a is gone after a refused DROP SCHEMA: %v", err)
			}
			var err error
			if prepared {
				var st driver.Stmt
				if st, err = c.PrepareContext(ctx, "DROP SCHEMA t7 CASCADE"); err == nil {
					_, err = st.(driver.StmtExecContext).ExecContext(ctx, nil)
				}
			} else {
				_, err = c.ExecContext(ctx, "DROP SCHEMA t7 CASCADE", nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fs.store.Describe(ctx, "t7.a"); err == nil {
				t.Error("t7.a is still in the store")
			}
			if q := statementsSent(fs); !slices.Contains(q, "DROP SCHEMA t7 CASCADE") || slices.Contains(q, "DROP SCHEMA t7") {
				t.Errorf("sent %q, want the CASCADE only", q)
			}
		})
	}
}
