package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/testkit/fakedriver"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
)

func TestLocalForms(t *testing.T) {
	tests := []struct {
		name  string
		query string
		args  []any
		cols  string
		want  string // rows, fmt'ed
	}{
		{"series", "SELECT nextval('s') FROM generate_series(1, 3)", nil, "nextval", "[[1] [2] [3]]"},
		{"name argument", "SELECT nextval($1)", []any{"S"}, "nextval", "[[1]]"},
		{"NULL name", "SELECT nextval($1)", []any{nil}, "nextval", "[[<nil>]]"},
		{"two calls", "SELECT nextval('s') AS a, nextval('s') AS b", nil, "a,b", "[[1 2]]"},
		{"NEXT VALUE FOR", "SELECT NEXT VALUE FOR s", nil, "nextval", "[[1]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFakeSetup(t)
			c, _ := fs.connect(t)
			before := fs.fake.Rec.Calls().Query // the search_path, read at connect
			rows, err := c.QueryContext(context.Background(), tt.query, named(tt.args...))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rows.Columns(), ","); got != tt.cols {
				t.Errorf("columns %s, want %s", got, tt.cols)
			}
			if got := fmt.Sprint(readAll(t, rows)); got != tt.want {
				t.Errorf("rows %s, want %s", got, tt.want)
			}
			if n := fs.fake.Rec.Calls().Query - before; n != 0 {
				t.Errorf("%d queries reached the inner driver", n)
			}
		})
	}
}

func TestRewriteNameArgument(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	if _, err := c.ExecContext(context.Background(), "INSERT INTO t VALUES (nextval($1), $2)", named("s", "x")); err != nil {
		t.Fatal(err)
	}
	q, a := fs.fake.Rec.Queries(), fs.fake.Rec.Args()
	if sent := q[len(q)-1]; strings.Contains(sent, "nextval") || !strings.Contains(sent, "$3::int8") {
		t.Errorf("sent %q", sent)
	}
	if args := a[len(a)-1]; len(args) != 3 || args[2].Value != int64(1) {
		t.Errorf("sent args %v, want the value as $3", args)
	}
}

func TestMultiStatement(t *testing.T) {
	ctx := context.Background()
	t.Run("local first", func(t *testing.T) {
		fs := newFakeSetup(t)
		c, _ := fs.connect(t)
		rows, err := c.QueryContext(ctx, "SELECT nextval('s'); UPDATE t SET x = 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(readAll(t, rows)); got != "[[1]]" {
			t.Errorf("rows %s", got)
		}
		q := statementsSent(fs)
		if len(q) != 1 || strings.TrimSpace(q[0]) != "UPDATE t SET x = 1" {
			t.Errorf("database got %q, want the UPDATE only", q)
		}
	})
	t.Run("rewrite then local", func(t *testing.T) {
		fs := newFakeSetup(t)
		c, _ := fs.connect(t)
		if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (nextval('s')); SELECT currval('s')", nil); err != nil {
			t.Fatal(err)
		}
		q := statementsSent(fs)
		if len(q) != 1 || !strings.Contains(q[0], "(1::int8)") || strings.Contains(q[0], "currval") {
			t.Errorf("database got %q", q)
		}
		if v, _ := queryInt(t, c, "SELECT currval('s')"); v != 1 {
			t.Errorf("currval %d", v)
		}
	})
	t.Run("DDL and table", func(t *testing.T) {
		fs := newFakeSetup(t)
		c, _ := fs.connect(t)
		if _, err := c.ExecContext(ctx, "CREATE SEQUENCE m START 7; CREATE TABLE u (id bigint); INSERT INTO u VALUES (nextval('m'))", nil); err != nil {
			t.Fatal(err)
		}
		// The sequence DDL is the store's, with its fenced twin made in a
		// transaction of its own (statements on pg_catalog's objects);
		// the rest goes as one string, the value written in.
		q := statementsSent(fs)
		if len(q) == 0 || !strings.Contains(q[len(q)-1], "(7::int8)") || slices.ContainsFunc(q, func(s string) bool { return strings.Contains(s, "START 7") }) {
			t.Errorf("database got %q", q)
		}
	})
}

// fakeName is the fake driver registered for sql.Open tests.
const fakeName = "seqshim-test-fake"

var fakeForOpen = &fakedriver.Connector{}

func init() { sql.Register(fakeName, fakeForOpen.Driver()) }

// TestOpenSharesCachePerURL: two sql.DBs with one store URL use one cache,
// so values increase across them; closing the last releases the tail.
func TestOpenSharesCachePerURL(t *testing.T) {
	store := "memory:" + t.Name()
	dsn := "seqshim.driver=" + fakeName + " seqshim.store=" + store + " host=nowhere"
	db1, err := sql.Open(DriverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db2, err := sql.Open(DriverName, dsn)
	if err != nil {
		t.Fatal(err)
	}
	// The inner driver never sees seqshim's parameters.
	if got := fakeForOpen.Rec.DSNs(); len(got) < 2 || got[len(got)-1] != "host=nowhere" {
		t.Errorf("inner driver opened with %q, want host=nowhere", got)
	}
	if _, err := db1.Exec("CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	var vals []int64
	for _, db := range []*sql.DB{db1, db2, db1, db2} {
		var v int64
		if err := db.QueryRow("SELECT nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		vals = append(vals, v)
	}
	if fmt.Sprint(vals) != "[1 2 3 4]" {
		t.Errorf("values across two sql.DBs %v, want [1 2 3 4]", vals)
	}
	db1.Close()
	var v int64
	if err := db2.QueryRow("SELECT nextval('s')").Scan(&v); err != nil || v != 5 {
		t.Errorf("after closing the other DB: %d, %v", v, err)
	}
	db2.Close()
	st, _ := memstore.Open(store)
	info, err := st.Describe(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if want := (sequence.Position{Last: 5, Called: true}); info.Position != want {
		t.Errorf("store position after the last Close %+v, want %+v (tail released)", info.Position, want)
	}
}

func TestDriverOpen(t *testing.T) {
	t.Setenv("SEQSHIM_STORE", "memory:"+t.Name()) // the environment fallback
	dc, err := defaultDriver.Open("seqshim.driver=" + fakeName)
	if err != nil {
		t.Fatal(err)
	}
	c := dc.(*conn)
	if _, err := c.ExecContext(context.Background(), "CREATE SEQUENCE s", nil); err != nil {
		t.Fatal(err)
	}
	if v, err := queryInt(t, c, "SELECT nextval('s')"); err != nil || v != 1 {
		t.Fatalf("nextval %d, %v", v, err)
	}
	if err := dc.Close(); err != nil {
		t.Fatal(err)
	}
	if !c.c.closed {
		t.Error("closing a connection from Driver.Open did not close its connector")
	}
}

// TestErrSkipDrawsNothing: with an inner driver without ExecerContext, the
// connection answers driver.ErrSkip before any sequence work, so that
// database/sql prepares the statement instead; the prepared statement then
// draws the value, once, and runs on the inner driver's prepared statement.
func TestErrSkipDrawsNothing(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	ctx := context.Background()
	c.execer, c.queryer = nil, nil // as if the inner driver lacked them
	for _, q := range []string{"UPDATE t SET a = 1", "INSERT INTO t VALUES (nextval('s'))"} {
		if _, err := c.ExecContext(ctx, q, nil); err != driver.ErrSkip {
			t.Errorf("%s without ExecerContext: %v, want driver.ErrSkip", q, err)
		}
	}
	if v, err := fs.store.Describe(ctx, "s"); err != nil || v.Position.Called {
		t.Fatalf("a value was drawn before ErrSkip: %+v, %v", v.Position, err)
	}
	st, err := c.PrepareContext(ctx, "INSERT INTO t VALUES (nextval('s'))")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.(driver.StmtExecContext).ExecContext(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Prepared, then executed.
	if q := statementsSent(fs); !slices.Equal(q, []string{"INSERT INTO t VALUES ((1::int8))", "INSERT INTO t VALUES ((1::int8))"}) {
		t.Errorf("sent %q", q)
	}
	if k := fs.fake.Rec.Calls(); k.Prepare != 1 || k.StmtExec != 1 {
		t.Errorf("inner calls %+v, want one prepare and one statement exec", k)
	}
}

// TestDDLKeepsCachedValues: DDL that does not change the values served
// leaves the cache alone, so no gap opens (as in PostgreSQL).
func TestDDLKeepsCachedValues(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	ctx := context.Background()
	var got []int64
	for _, q := range []string{
		"SELECT nextval('s')",
		"CREATE SEQUENCE IF NOT EXISTS s START 100",
		"SELECT nextval('s')",
		"ALTER SEQUENCE s OWNED BY NONE",
		"SELECT nextval('s')",
		"ALTER SEQUENCE s START 10 CACHE 5",
		"SELECT nextval('s')",
	} {
		if strings.HasPrefix(q, "SELECT") {
			v, err := queryInt(t, c, q)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		} else if _, err := c.ExecContext(ctx, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if fmt.Sprint(got) != "[1 2 3 4]" {
		t.Errorf("values %v, want [1 2 3 4]", got)
	}
}

func TestDropErrors(t *testing.T) {
	fs := newFakeSetup(t)
	fs.fake.SetSearchPath("", "public", "app")
	c, _ := fs.connect(t)
	ctx := context.Background()
	tests := []struct{ query, want string }{
		{"DROP SEQUENCE missing", `sequence "missing" does not exist`},
		{"DROP SEQUENCE s, missing", `sequence "missing" does not exist`},
		{"DROP SEQUENCE app.missing", `sequence "app.missing" does not exist`}, // schema app exists
	}
	for _, tt := range tests {
		_, err := c.ExecContext(ctx, tt.query, nil)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42P01" || pe.Message != tt.want {
			t.Errorf("%s: %v, want 42P01 %s", tt.query, err, tt.want)
		}
	}
	if _, err := fs.store.Describe(ctx, "s"); err != nil {
		t.Errorf("a failed DROP of several sequences dropped s: %v", err)
	}
	if _, err := c.ExecContext(ctx, "DROP SEQUENCE s, public.S", nil); err != nil {
		t.Errorf("one sequence named twice: %v", err)
	}
}

// TestRequest: the engine is told how pgx sends a text, so that a string
// of several statements fails by the extended protocol as PostgreSQL
// fails it.
func TestRequest(t *testing.T) {
	simple, exec := pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec
	for _, tc := range []struct {
		name string
		c    conn
		args []driver.NamedValue
		rows bool
		want engine.Request
	}{
		{"query", conn{pgx: true}, nil, true, engine.Request{Rows: true, Extended: true}},
		{"query, simple mode", conn{pgx: true}, named(simple), true, engine.Request{Rows: true}},
		{"query, simple by default", conn{pgx: true, simple: true}, named(int64(1)), true, engine.Request{Rows: true}},
		{"query, exec mode over a simple default", conn{pgx: true, simple: true}, named(exec), true, engine.Request{Rows: true, Extended: true}},
		{"exec", conn{pgx: true}, nil, false, engine.Request{}},
		{"exec, a mode only", conn{pgx: true}, named(exec), false, engine.Request{}},
		{"exec with arguments", conn{pgx: true}, named(int64(1)), false, engine.Request{Extended: true}},
		{"exec with arguments, simple mode", conn{pgx: true}, named(simple, int64(1)), false, engine.Request{}},
		{"another inner driver", conn{}, named(int64(1)), true, engine.Request{Rows: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.request(tc.args, numOptions(tc.args), tc.rows); got != tc.want {
				t.Errorf("request %+v, want %+v", got, tc.want)
			}
		})
	}
}
