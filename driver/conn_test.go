package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/testkit/fakedriver"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// fakeSetup is a Connector around the fake inner driver, with a memory
// store holding sequence s (1, 2, 3, …).
type fakeSetup struct {
	c     *Connector
	fake  *fakedriver.Connector
	store *memstore.Store
}

func newFakeSetup(t testing.TB, optFns ...func(*Options)) *fakeSetup {
	t.Helper()
	fs := &fakeSetup{fake: &fakedriver.Connector{}, store: memstore.New()}
	fs.fake.Rec.Record = true
	spec, pos, _ := sequence.Clauses{}.Create()
	if err := fs.store.Create(context.Background(), "s", spec, pos); err != nil {
		t.Fatal(err)
	}
	opts := append([]func(*Options){func(o *Options) { o.Store = fs.store }}, optFns...)
	c, err := NewConnector(fs.fake, opts...)
	if err != nil {
		t.Fatal(err)
	}
	fs.c = c
	t.Cleanup(func() { c.Close() })
	return fs
}

// connect returns a seqshim conn and the fake conn inside it.
func (fs *fakeSetup) connect(t testing.TB) (*conn, *fakedriver.Conn) {
	t.Helper()
	dc, err := fs.c.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dc.Close() })
	return dc.(*conn), fs.fake.Last()
}

func named(vals ...any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(vals))
	for i, v := range vals {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// readAll drains driver rows.
func readAll(t testing.TB, rows driver.Rows) [][]driver.Value {
	t.Helper()
	defer rows.Close()
	var out [][]driver.Value
	for {
		dest := make([]driver.Value, len(rows.Columns()))
		err := rows.Next(dest)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, dest)
	}
}

func TestForwarding(t *testing.T) {
	fs := newFakeSetup(t)
	c, inner := fs.connect(t)
	ctx := context.Background()

	tests := []struct {
		name  string
		do    func() error
		count func(fakedriver.Calls) int
	}{
		{"Pinger", func() error { return c.Ping(ctx) }, func(k fakedriver.Calls) int { return k.Ping }},
		{"NamedValueChecker", func() error { return c.CheckNamedValue(&driver.NamedValue{Value: pgx.QueryExecModeExec}) },
			func(k fakedriver.Calls) int { return k.Check }},
		{"SessionResetter", func() error { return c.ResetSession(ctx) }, func(k fakedriver.Calls) int { return k.Reset }},
		{"Validator", func() error {
			if !c.IsValid() {
				return errors.New("not valid")
			}
			return nil
		}, func(k fakedriver.Calls) int { return k.IsValid }},
		{"ConnBeginTx", func() error {
			got, err := c.BeginTx(ctx, driver.TxOptions{})
			if w, ok := got.(*tx); err == nil && (!ok || w.inner != driver.Tx(inner.LastTx)) {
				return errors.New("transaction does not wrap the inner one")
			}
			return err
		}, func(k fakedriver.Calls) int { return k.Begin }},
		{"ExecerContext", func() error {
			res, err := c.ExecContext(ctx, "UPDATE t SET a = $1", named(1))
			if err == nil && res != driver.Result(inner.LastResult) {
				return errors.New("result is not the inner one")
			}
			return err
		}, func(k fakedriver.Calls) int { return k.Exec }},
		{"QueryerContext", func() error {
			rows, err := c.QueryContext(ctx, "SELECT 1", nil)
			if err == nil && rows != driver.Rows(inner.LastRows) {
				return errors.New("rows are not the inner ones")
			}
			return err
		}, func(k fakedriver.Calls) int { return k.Query }},
		{"ConnPrepareContext", func() error {
			st, err := c.PrepareContext(ctx, "SELECT $1")
			if err == nil && st.(*stmt).inner != driver.Stmt(inner.LastStmt) {
				return errors.New("the statement does not run the inner one")
			}
			return err
		}, func(k fakedriver.Calls) int { return k.Prepare }},
		{"StmtExecContext", func() error {
			st, err := c.PrepareContext(ctx, "SELECT $1")
			if err == nil {
				_, err = st.(driver.StmtExecContext).ExecContext(ctx, named(int64(1)))
			}
			return err
		}, func(k fakedriver.Calls) int { return k.StmtExec }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.count(fs.fake.Rec.Calls())
			if err := tt.do(); err != nil {
				t.Fatal(err)
			}
			if after := tt.count(fs.fake.Rec.Calls()); after != before+1 {
				t.Errorf("inner calls %d → %d, want one more", before, after)
			}
		})
	}
	t.Run("Unwrap", func(t *testing.T) {
		if c.Unwrap() != driver.Conn(inner) {
			t.Error("Unwrap does not return the inner connection")
		}
	})
}

// TestRawUnwrap goes through database/sql: sql.Conn.Raw reaches the seqshim
// connection, whose Unwrap reaches the inner one.
func TestRawUnwrap(t *testing.T) {
	fs := newFakeSetup(t)
	db := sql.OpenDB(fs.c)
	defer db.Close()
	sc, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	err = sc.Raw(func(dc any) error {
		u, ok := dc.(interface{ Unwrap() driver.Conn })
		if !ok {
			return errors.New("no Unwrap")
		}
		if _, ok := u.Unwrap().(*fakedriver.Conn); !ok {
			return errors.New("Unwrap is not the inner connection")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestLocalNextvalSendsNothing(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	ctx := context.Background()
	before := fs.fake.Rec.Calls()

	tests := []struct {
		query string
		cols  []string
	}{
		{"SELECT nextval('s')", []string{"nextval"}},
		{"select nextval('public.s') as id", []string{"id"}},
		{"SELECT currval('s'), lastval()", []string{"currval", "lastval"}},
	}
	var last int64
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rows, err := c.QueryContext(ctx, tt.query, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows.Columns(); strings.Join(got, ",") != strings.Join(tt.cols, ",") {
				t.Errorf("columns %q, want %q", got, tt.cols)
			}
			ct := rows.(driver.RowsColumnTypeDatabaseTypeName)
			if got := ct.ColumnTypeDatabaseTypeName(0); got != "INT8" {
				t.Errorf("type %q, want INT8", got)
			}
			vals := readAll(t, rows)
			if len(vals) != 1 {
				t.Fatalf("%d rows, want 1", len(vals))
			}
			v := vals[0][0].(int64)
			if strings.Contains(tt.query, "nextval") {
				if v <= last {
					t.Errorf("nextval %d after %d", v, last)
				}
				last = v
			} else if v != last {
				t.Errorf("got %d, want %d", v, last)
			}
		})
	}
	res, err := c.ExecContext(ctx, "SELECT nextval('s')", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("RowsAffected %d, want 1", n)
	}
	if after := fs.fake.Rec.Calls(); after != before {
		t.Errorf("inner driver was called: %+v → %+v", before, after)
	}
}

func TestRewriteInline(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	ctx := context.Background()
	for want := int64(1); want <= 2; want++ {
		if _, err := c.ExecContext(ctx, "INSERT INTO t (id) VALUES (nextval('s'))", nil); err != nil {
			t.Fatal(err)
		}
		q := fs.fake.Rec.Queries()
		got := q[len(q)-1]
		if strings.Contains(got, "nextval") || !strings.Contains(got, "("+strconv.FormatInt(want, 10)+"::int8)") {
			t.Errorf("sent %q, want the value %d inlined", got, want)
		}
	}
}

func TestRewriteBind(t *testing.T) {
	tests := []struct {
		name string
		args []any
	}{
		{"plain", []any{"x"}},
		{"pgx exec mode", []any{pgx.QueryExecModeSimpleProtocol, "x"}},
		{"pgx two options", []any{pgx.QueryExecModeExec, pgx.QueryResultFormats{1}, "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFakeSetup(t)
			c, _ := fs.connect(t)
			for want := int64(1); want <= 2; want++ {
				if _, err := c.ExecContext(context.Background(), "INSERT INTO t VALUES (nextval('s'), $1)", named(tt.args...)); err != nil {
					t.Fatal(err)
				}
				q, a := fs.fake.Rec.Queries(), fs.fake.Rec.Args()
				sent, args := q[len(q)-1], a[len(a)-1]
				if !strings.Contains(sent, "$2::int8") || strings.Contains(sent, "nextval") {
					t.Errorf("sent %q, want nextval replaced by $2::int8", sent)
				}
				if len(args) != len(tt.args)+1 {
					t.Fatalf("sent %d args, want %d", len(args), len(tt.args)+1)
				}
				if got := args[len(args)-1]; got.Value != want || got.Ordinal != 2 {
					t.Errorf("value argument %+v, want %d as $2", got, want)
				}
				for i := range tt.args {
					if !reflect.DeepEqual(args[i].Value, tt.args[i]) {
						t.Errorf("argument %d changed: %v, want %v", i, args[i].Value, tt.args[i])
					}
				}
			}
		})
	}
}

func TestPreparedFreshValues(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	ctx := context.Background()
	st, err := c.PrepareContext(ctx, "INSERT INTO t VALUES (nextval('s'), $1)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := st.NumInput(); n != 1 {
		t.Errorf("NumInput %d, want 1 (injected parameters hidden)", n)
	}
	se := st.(driver.StmtExecContext)
	for want := int64(1); want <= 3; want++ {
		if _, err := se.ExecContext(ctx, named("x")); err != nil {
			t.Fatal(err)
		}
		a := fs.fake.Rec.Args()
		if got := a[len(a)-1][1].Value; got != want {
			t.Errorf("execution %d sent value %v, want %d", want, got, want)
		}
	}

	lst, err := c.PrepareContext(ctx, "SELECT nextval('s')")
	if err != nil {
		t.Fatal(err)
	}
	before := fs.fake.Rec.Calls()
	for want := int64(4); want <= 5; want++ {
		rows, err := lst.(driver.StmtQueryContext).QueryContext(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, rows)[0][0]; got != want {
			t.Errorf("prepared local nextval %v, want %d", got, want)
		}
	}
	if after := fs.fake.Rec.Calls(); after != before {
		t.Errorf("prepared local statement reached the inner driver: %+v → %+v", before, after)
	}
}

func queryInt(t *testing.T, c *conn, query string, args ...any) (int64, error) {
	t.Helper()
	rows, err := c.QueryContext(context.Background(), query, named(args...))
	if err != nil {
		return 0, err
	}
	vals := readAll(t, rows)
	if len(vals) != 1 || len(vals[0]) != 1 {
		t.Fatalf("%s: %v, want one value", query, vals)
	}
	v, _ := vals[0][0].(int64)
	return v, nil
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestSessionState(t *testing.T) {
	fs := newFakeSetup(t)
	a, _ := fs.connect(t)
	b, _ := fs.connect(t)

	if _, err := queryInt(t, a, "SELECT currval('s')"); pgCode(err) != "55000" {
		t.Fatalf("currval before nextval: %v, want 55000", err)
	}
	if _, err := queryInt(t, a, "SELECT lastval()"); pgCode(err) != "55000" {
		t.Fatalf("lastval before nextval: %v, want 55000", err)
	}
	if _, err := queryInt(t, a, "SELECT currval('nope')"); pgCode(err) != "42P01" {
		t.Fatalf("currval of a missing sequence: %v, want 42P01", err)
	}
	va, _ := queryInt(t, a, "SELECT nextval('s')")
	vb, _ := queryInt(t, b, "SELECT nextval('s')")
	if got, _ := queryInt(t, a, "SELECT currval('s')"); got != va {
		t.Errorf("session a currval %d, want %d", got, va)
	}
	if got, _ := queryInt(t, b, "SELECT lastval()"); got != vb {
		t.Errorf("session b lastval %d, want %d", got, vb)
	}
	if _, err := a.ExecContext(context.Background(), "DISCARD SEQUENCES", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := queryInt(t, a, "SELECT currval('s')"); pgCode(err) != "55000" {
		t.Errorf("currval after DISCARD SEQUENCES: %v, want 55000", err)
	}
	if _, err := b.ExecContext(context.Background(), "DISCARD ALL", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := queryInt(t, b, "SELECT lastval()"); pgCode(err) != "55000" {
		t.Errorf("lastval after DISCARD ALL: %v, want 55000", err)
	}
	q := fs.fake.Rec.Queries()
	if q[len(q)-1] != "DISCARD ALL" || q[len(q)-2] != "DISCARD SEQUENCES" {
		t.Errorf("DISCARD did not reach the database: %q", q)
	}
}

// TestDiscardForms: DISCARD SEQUENCES and DISCARD ALL clear the session in
// every way a statement reaches the database, and nothing else does.
func TestDiscardForms(t *testing.T) {
	ctx := context.Background()
	exec := func(c *conn, q string) error { _, err := c.ExecContext(ctx, q, nil); return err }
	query := func(c *conn, q string) error {
		rows, err := c.QueryContext(ctx, q, nil)
		if err == nil {
			rows.Close()
		}
		return err
	}
	prepared := func(c *conn, q string) error {
		st, err := c.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer st.Close()
		_, err = st.(driver.StmtExecContext).ExecContext(ctx, nil)
		return err
	}
	for _, tt := range []struct {
		name  string
		run   func(*conn, string) error
		query string
		clear bool
	}{
		{"exec", exec, "DISCARD SEQUENCES", true},
		{"query", query, "discard all", true},
		{"prepared", prepared, "DISCARD ALL", true},
		{"comment first", exec, "/* pool reset */ DISCARD ALL", true},
		{"second statement", exec, "SET search_path = public; DISCARD SEQUENCES", true},
		{"after a local statement", query, "SELECT nextval('s'); DISCARD SEQUENCES", true},
		{"other DISCARD", exec, "DISCARD PLANS", false},
		{"in a literal", query, "SELECT 'DISCARD ALL'", false},
		{"prepared other", prepared, "DISCARD TEMP", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFakeSetup(t)
			c, _ := fs.connect(t)
			if _, err := queryInt(t, c, "SELECT nextval('s')"); err != nil {
				t.Fatal(err)
			}
			if err := tt.run(c, tt.query); err != nil {
				t.Fatal(err)
			}
			_, err := queryInt(t, c, "SELECT lastval()")
			if cleared := pgCode(err) == "55000"; cleared != tt.clear {
				t.Errorf("after %q: lastval gives %v; want cleared %v", tt.query, err, tt.clear)
			}
		})
	}
}

func TestSetvalInvalidates(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	if v, _ := queryInt(t, c, "SELECT nextval('s')"); v != 1 {
		t.Fatalf("first nextval %d", v)
	}
	if v, err := queryInt(t, c, "SELECT setval('s', 100)"); err != nil || v != 100 {
		t.Fatalf("setval: %d, %v", v, err)
	}
	if v, _ := queryInt(t, c, "SELECT currval('s')"); v != 100 {
		t.Errorf("currval after setval %d, want 100", v)
	}
	if v, _ := queryInt(t, c, "SELECT nextval('s')"); v != 101 {
		t.Errorf("nextval after setval %d, want 101 (cached block not dropped?)", v)
	}
	if v, err := queryInt(t, c, "SELECT setval('s', $1, $2)", int64(7), false); err != nil || v != 7 {
		t.Fatalf("setval with arguments: %d, %v", v, err)
	}
	if v, _ := queryInt(t, c, "SELECT nextval('s')"); v != 7 {
		t.Errorf("nextval after setval(7, false) %d, want 7", v)
	}
}

func TestDDL(t *testing.T) {
	ctx := context.Background()
	t.Run("store", func(t *testing.T) {
		fs := newFakeSetup(t)
		c, _ := fs.connect(t)
		before, sentBefore := fs.fake.Rec.Calls(), len(statementsSent(fs))
		steps := []string{
			"CREATE SEQUENCE o START 10 INCREMENT BY 5",
			"CREATE SEQUENCE IF NOT EXISTS o",
		}
		for _, q := range steps {
			if _, err := c.ExecContext(ctx, q, nil); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if v, _ := queryInt(t, c, "SELECT nextval('o')"); v != 10 {
			t.Errorf("first value %d, want 10", v)
		}
		if v, _ := queryInt(t, c, "SELECT nextval('o')"); v != 15 {
			t.Errorf("second value %d, want 15", v)
		}
		if _, err := c.ExecContext(ctx, "ALTER SEQUENCE o RESTART WITH 100", nil); err != nil {
			t.Fatal(err)
		}
		if v, _ := queryInt(t, c, "SELECT nextval('o')"); v != 100 {
			t.Errorf("after RESTART %d, want 100 (cached block not dropped?)", v)
		}
		if _, err := c.ExecContext(ctx, "ALTER SEQUENCE o RENAME TO o2", nil); err != nil {
			t.Fatal(err)
		}
		if v, err := queryInt(t, c, "SELECT currval('o2')"); err != nil || v != 100 {
			t.Errorf("currval after RENAME: %d, %v; want 100 (session state follows the sequence)", v, err)
		}
		// Values cached under the old name are dropped: a gap, never a repeat.
		if v, _ := queryInt(t, c, "SELECT nextval('o2')"); v <= 100 || (v-100)%5 != 0 {
			t.Errorf("nextval after RENAME %d, want a later value of the sequence", v)
		}
		if _, err := queryInt(t, c, "SELECT nextval('o')"); pgCode(err) != "42P01" {
			t.Errorf("nextval of the old name: %v, want 42P01", err)
		}
		if _, err := c.ExecContext(ctx, "ALTER SEQUENCE IF EXISTS nope RESTART", nil); err != nil {
			t.Errorf("ALTER IF EXISTS of a missing sequence: %v", err)
		}
		if _, err := c.ExecContext(ctx, "ALTER SEQUENCE o2 RENAME TO o", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "CREATE SEQUENCE o", nil); pgCode(err) != "42P07" {
			t.Errorf("CREATE of an existing sequence: %v, want 42P07", err)
		}
		if _, err := c.ExecContext(ctx, "DROP SEQUENCE o", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := queryInt(t, c, "SELECT nextval('o')"); pgCode(err) != "42P01" {
			t.Errorf("nextval after DROP: %v, want 42P01", err)
		}
		if _, err := c.ExecContext(ctx, "DROP SEQUENCE IF EXISTS o", nil); err != nil {
			t.Errorf("DROP IF EXISTS: %v", err)
		}
		// Not as written: only seqshim's own statements did — catalog
		// queries, and the fenced twins' DDL (on pg_catalog's objects and
		// quoted names) in transactions of their own.
		for _, q := range statementsSent(fs)[sentBefore:] {
			switch q {
			case "BEGIN", "COMMIT", "ROLLBACK", "SHOW transaction_read_only":
			default:
				if !strings.Contains(q, `SEQUENCE "public".`) {
					t.Errorf("DDL reached the database as written with ddl=store: %q", q)
				}
			}
		}
		if after := fs.fake.Rec.Calls(); after.Prepare != before.Prepare {
			t.Errorf("DDL prepared with ddl=store: %+v → %+v", before, after)
		}
	})
	t.Run("both", func(t *testing.T) {
		fs := newFakeSetup(t, func(o *Options) { o.DDL = DDLBoth })
		c, _ := fs.connect(t)
		if _, err := c.ExecContext(ctx, "CREATE SEQUENCE b2", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := fs.store.Describe(ctx, "b2"); err != nil {
			t.Errorf("not in the store: %v", err)
		}
		q := fs.fake.Rec.Queries()
		if len(q) == 0 || q[len(q)-1] != "CREATE SEQUENCE b2" {
			t.Errorf("database got %q, want the CREATE", q)
		}
	})
}

func TestErrors(t *testing.T) {
	fs := newFakeSetup(t)
	c, _ := fs.connect(t)
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE SEQUENCE lim MAXVALUE 2", nil); err != nil {
		t.Fatal(err)
	}
	queryInt(t, c, "SELECT nextval('lim')")
	queryInt(t, c, "SELECT nextval('lim')")
	_, err := queryInt(t, c, "SELECT nextval('lim')")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("error %T %v, want *pgconn.PgError", err, err)
	}
	if pe.Code != "2200H" || pe.Message != `nextval: reached maximum value of sequence "lim" (2)` || pe.Severity != "ERROR" {
		t.Errorf("error %+v", pe)
	}

	_, err = c.ExecContext(ctx, "INSERT INTO t SELECT nextval('s') FROM u", nil)
	if pgCode(err) != "0A000" {
		t.Errorf("per-row nextval: %v, want 0A000", err)
	}
}

// badConnStore fails every call with driver.ErrBadConn, which must never
// reach database/sql as such.
type badConnStore struct{ sequence.Store }

func (badConnStore) Reserve(context.Context, string, int64) (sequence.Block, error) {
	return sequence.Block{}, driver.ErrBadConn
}

func (badConnStore) SetVal(context.Context, string, int64, bool) (sequence.Info, error) {
	return sequence.Info{}, driver.ErrBadConn
}

func TestStoreErrorNotBadConn(t *testing.T) {
	fs := newFakeSetup(t, func(o *Options) {
		o.Store = badConnStore{memstore.New()}
		o.MaxWait = 1 // nanosecond: fail fast
	})
	c, _ := fs.connect(t)
	for _, q := range []string{"SELECT nextval('s')", "SELECT setval('s', 5)", "INSERT INTO t VALUES (nextval('s'))"} {
		_, err := c.ExecContext(context.Background(), q, nil)
		if err == nil || errors.Is(err, driver.ErrBadConn) {
			t.Errorf("%s: %v, want an error that is not driver.ErrBadConn", q, err)
		}
	}
}

func TestSharedCachePerStore(t *testing.T) {
	st := memstore.New()
	spec, pos, _ := sequence.Clauses{}.Create()
	st.Create(context.Background(), "s", spec, pos)
	mk := func() *Connector {
		c, err := NewConnector(&fakedriver.Connector{}, func(o *Options) { o.Store = st })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := mk(), mk()
	ca, err := a.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cb, err := b.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if a.Cache() != b.Cache() {
		t.Fatal("two connectors of one store have two caches")
	}
	// Values increase across the two sql.DBs of the process.
	v1, _ := queryInt(t, ca.(*conn), "SELECT nextval('s')")
	v2, _ := queryInt(t, cb.(*conn), "SELECT nextval('s')")
	if v2 <= v1 {
		t.Errorf("values %d then %d across connectors", v1, v2)
	}
	ca.Close()
	a.Close()
	if v3, err := queryInt(t, cb.(*conn), "SELECT nextval('s')"); err != nil || v3 <= v2 {
		t.Errorf("after closing the other connector: %d, %v", v3, err)
	}
	cb.Close()
	b.Close()
	// The last Close closed the cache and handed the unused tail back.
	info, err := st.Describe(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if info.Position != (sequence.Position{Last: 3, Called: true}) {
		t.Errorf("store position after Close %+v, want last value 3, called (tail released)", info.Position)
	}
}

// sql.DB.Close closes the Connector (an io.Closer): refills stop and the
// unused values go back to the store, which then continues where the
// application stopped.
func TestDBCloseReleases(t *testing.T) {
	fs := newFakeSetup(t)
	db := sql.OpenDB(fs.c)
	var v int64
	for range 3 {
		if err := db.QueryRow("SELECT nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	cache := fs.c.Cache()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st := cache.Stats("s")
	if st.Released == 0 || st.Depth != 0 {
		t.Errorf("after db.Close: %d values released, %d still cached; want the unused values released", st.Released, st.Depth)
	}
	if _, err := cache.Next(context.Background(), "s"); !errors.Is(err, seqcache.ErrClosed) {
		t.Errorf("Next after db.Close: %v, want ErrClosed", err)
	}
	info, err := fs.store.Describe(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	if want := (sequence.Position{Last: v, Called: true}); info.Position != want {
		t.Errorf("store position after db.Close %+v, want %+v", info.Position, want)
	}
}

// bareConnector hands out connections that show only database/sql's
// interfaces: no way to the database session behind them.
type bareConnector struct{ driver.Connector }

type bareConn struct {
	driver.Conn
	driver.ExecerContext
	driver.QueryerContext
}

func (c bareConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return bareConn{dc, dc.(driver.ExecerContext), dc.(driver.QueryerContext)}, nil
}

// TestInnerWithoutSession: the postgres dialect needs the inner
// connection's session (engine.DB); an inner driver without it fails the
// connection at once, saying so, rather than seqshim skipping the checks
// that need it. The other dialects take it.
func TestInnerWithoutSession(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		dialect string
		fails   bool
	}{{DialectPostgres, true}, {DialectSQLite, false}, {DialectMySQL, false}} {
		t.Run(tt.dialect, func(t *testing.T) {
			c, err := NewConnector(bareConnector{&fakedriver.Connector{}}, func(o *Options) {
				o.Store, o.Dialect = memstore.New(), tt.dialect
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			dc, err := c.Connect(ctx)
			if tt.fails {
				if err == nil || !strings.Contains(err.Error(), "postgres dialect needs") || !strings.Contains(err.Error(), "bareConn") {
					t.Fatalf("connect: %v, want the postgres dialect's refusal naming the inner connection", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dc.Close()
		})
	}
}
