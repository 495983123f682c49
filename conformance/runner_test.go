package conformance_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "modernc.org/sqlite" // driver "sqlite": exercises the runner without a server

	"github.com/seqshim/seqshim/conformance"
)

// TestRunSQLite runs every kind of step on SQLite, which needs no server:
// the runner's sessions, statements, transactions and rendering are checked
// here, PostgreSQL's specifics in TestConformance.
func TestRunSQLite(t *testing.T) {
	sc, err := conformance.Parse("sqlite.txt", []byte(sqliteScenario))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "run.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tr, err := conformance.Run(context.Background(), db, sc)
	if err != nil {
		t.Fatal(err)
	}
	if o := conformance.CompareExact(sc, sc.Expected(), tr); !o.OK() {
		t.Errorf("transcript differs:\n%s", conformance.Diff(sc, "sqlite", o))
	}
}

// sqliteScenario has every kind of step of one database without dsn= or
// mode=, with SQLite's transcript: TestRunSQLite runs it through
// database/sql, TestRunConnTargetSQLite through a Conn.
const sqliteScenario = `# The runner on SQLite.
exec
CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, r REAL, b BLOB)
----
ok 0

exec args 'a' '1.5'
INSERT INTO t (name, r) VALUES (?, 1.5), (?, NULL)
----
ok 2

query
SELECT id, name, r, b FROM t ORDER BY id
----
id INTEGER | name TEXT | r REAL | b BLOB
1 | a | 1.5 | NULL
2 | 1.5 | NULL | NULL
(2 rows)

query
CREATE TABLE c (x INTEGER)
----
(no columns)
(0 rows)

query
SELECT '' AS empty, 'x | y' AS pipe, ' pad' AS pad, 'NULL' AS null_text
----
empty | pipe | pad | null_text
"" | "x | y" | " pad" | "NULL"
(1 row)

prepare stmt=ins
INSERT INTO t (name) VALUES (?)
----
ok

begin
----
ok

exec stmt=ins args 'in tx'
----
ok 1

rollback
----
ok

exec stmt=ins args 'kept'
----
ok 1

query session=b
SELECT name FROM t WHERE id > 2
----
name TEXT
kept
(1 row)

query
SELECT * FROM missing
----
ERROR: SQL logic error: no such table: missing (1)

commit
----
ERROR: no transaction on the session

query stmt=nope
----
ERROR: no prepared statement "nope" on session a

exec session=c
CREATE TEMP TABLE tmp (x INTEGER)
----
ok 0

prepare session=c stmt=p
SELECT count(*) FROM tmp
----
ok

begin session=c
----
ok

disconnect session=c
----
ok

query session=c
SELECT count(*) FROM tmp
----
ERROR: SQL logic error: no such table: tmp (1)

query session=c stmt=p
----
ERROR: no prepared statement "p" on session c
`

// TestRunDatabases runs a scenario on several databases of a driver that
// needs no server (meetDatabases): steps reach their session's database,
// recreate closes that database's sessions and handles (only those) before
// the database is created again, and together steps run at the same moment
// — their MEET statements return only once all three have arrived, so run
// one after the other they would block until the context ends.
func TestRunDatabases(t *testing.T) {
	sc, err := conformance.Parse("dbs.txt", []byte(`# Databases.
query db=a
WHO
----
who
a#0
(1 row)

query session=x db=b
WHO
----
who
b#0
(1 row)

begin session=x
----
ok

exec db=a together
MEET
----
ok 0

exec session=x together
MEET
----
ok 0

exec db=c together
MEET
----
ok 0

recreate db=b
----
ok

query session=x
WHO
----
who
b#1
(1 row)

query db=b
WHO
----
who
b#1
(1 row)

query db=a
WHO
----
who
a#0
(1 row)

recreate db=a
----
ok

query db=a
WHO
----
who
a#1
(1 row)
`))
	if err != nil {
		t.Fatal(err)
	}
	dbs := newMeetDatabases(3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr, err := conformance.RunDatabases(ctx, dbs, sc)
	if err != nil {
		t.Fatal(err)
	}
	if o := conformance.CompareExact(sc, sc.Expected(), tr); !o.OK() {
		t.Errorf("transcript differs:\n%s", conformance.Diff(sc, "meet", o))
	}
	for _, err := range dbs.errs {
		t.Error(err)
	}
	// Everything the runner opened is closed when it returns.
	for name, hs := range dbs.handles {
		for _, h := range hs {
			if err := h.Ping(); err == nil {
				t.Errorf("a handle on %s is still open after RunDatabases", name)
			}
		}
	}
}

// TestRunOneDatabase checks that Run, which has one database, refuses the
// steps of several.
func TestRunOneDatabase(t *testing.T) {
	for _, src := range []string{
		"query db=b\nSELECT 1\n----\nx\n",
		"query\nSELECT 1\n----\nx\n\nrecreate db=a\n----\nok\n",
	} {
		sc, err := conformance.Parse("one.txt", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "one.db"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = conformance.Run(context.Background(), db, sc)
		db.Close()
		if err == nil || !strings.Contains(err.Error(), "several databases") {
			t.Errorf("Run(%q) error = %v; want one naming several databases", src, err)
		}
	}
}

// meetDatabases is a conformance.Databases whose connections answer WHO
// with their database and its incarnation ("b#1": b created again once),
// and MEET by waiting until n connections have sent it.
type meetDatabases struct {
	n       int
	mu      sync.Mutex           // guards the fields below
	arrived int                  // MEETs so far
	met     chan struct{}        // closed at the n-th MEET
	gens    map[string]int       // recreations per database
	handles map[string][]*sql.DB // every handle Open gave, per database
	errs    []error              // what Recreate found wrong
}

func newMeetDatabases(n int) *meetDatabases {
	return &meetDatabases{n: n, met: make(chan struct{}), gens: map[string]int{}, handles: map[string][]*sql.DB{}}
}

func (m *meetDatabases) Open(name, params string) (*sql.DB, error) {
	if params != "" {
		return nil, fmt.Errorf("unexpected params %q", params)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	db := sql.OpenDB(meetConnector{m: m, who: fmt.Sprintf("%s#%d", name, m.gens[name])})
	m.handles[name] = append(m.handles[name], db)
	return db, nil
}

func (m *meetDatabases) Recreate(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for other, hs := range m.handles {
		open := 0
		for _, h := range hs {
			if h.Ping() == nil {
				open++
			}
		}
		switch {
		case other == name && open > 0:
			m.errs = append(m.errs, fmt.Errorf("recreate %s: %d handles on it still open", name, open))
		case other != name && open == 0:
			m.errs = append(m.errs, fmt.Errorf("recreate %s: every handle on %s closed too", name, other))
		}
	}
	m.gens[name]++
	return nil
}

type meetConnector struct {
	m   *meetDatabases
	who string
}

func (c meetConnector) Connect(context.Context) (driver.Conn, error) { return meetConn(c), nil }
func (c meetConnector) Driver() driver.Driver                        { return nil }

type meetConn meetConnector

func (c meetConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no prepare") }
func (c meetConn) Close() error                        { return nil }
func (c meetConn) Begin() (driver.Tx, error)           { return c, nil }
func (c meetConn) Commit() error                       { return nil }
func (c meetConn) Rollback() error                     { return nil }

func (c meetConn) ExecContext(ctx context.Context, query string, _ []driver.NamedValue) (driver.Result, error) {
	if query != "MEET" {
		return nil, fmt.Errorf("exec %q", query)
	}
	m := c.m
	m.mu.Lock()
	if m.arrived++; m.arrived == m.n {
		close(m.met)
	}
	m.mu.Unlock()
	select {
	case <-m.met:
		return driver.RowsAffected(0), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c meetConn) QueryContext(_ context.Context, query string, _ []driver.NamedValue) (driver.Rows, error) {
	if query != "WHO" {
		return nil, fmt.Errorf("query %q", query)
	}
	return &whoRows{who: c.who}, nil
}

type whoRows struct {
	who  string
	done bool
}

func (r *whoRows) Columns() []string { return []string{"who"} }
func (r *whoRows) Close() error      { return nil }
func (r *whoRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done = true
	dest[0] = r.who
	return nil
}

// TestRunConnTarget runs every kind of step through RunConnTarget on a
// fake front end (fakeFront): sessions open on their database with their
// dsn= parameters, mode= prepends the pgx.QueryExecMode, prepared
// statements run by name (a new name at every prepare, so preparing a
// label again works where reusing a name would fail), together steps meet
// (their MEETs return only once all three have arrived), recreate closes
// the sessions on its database only, rolling back their transactions,
// before Recreate, and disconnect rolls back and closes its session, whose
// next step opens a new one.
func TestRunConnTarget(t *testing.T) {
	sc, err := conformance.Parse("conn.txt", []byte(`# RunConnTarget.
query
SELECT 1
----
who TEXT | ran TEXT | args TEXT | tx TEXT
a#0 | SELECT 1 | "" | none
(1 row)

query mode=simple args 5 'x'
SELECT $1, $2
----
who TEXT | ran TEXT | args TEXT | tx TEXT
a#0 | SELECT $1, $2 | pgx.QueryExecMode(simple protocol), int64(5), string(x) | none
(1 row)

exec mode=exec args 1
UPDATE
----
ok 2

prepare stmt=ins
INSERT 1
----
ok

begin readonly
----
ok

query stmt=ins args 7
----
who TEXT | ran TEXT | args TEXT | tx TEXT
a#0 | EXECUTE INSERT 1 | int64(7) | ro
(1 row)

exec stmt=ins args 1 2
----
ok 2

prepare stmt=ins
INSERT 2
----
ok

commit
----
ok

query stmt=ins
----
who TEXT | ran TEXT | args TEXT | tx TEXT
a#0 | EXECUTE INSERT 2 | "" | none
(1 row)

query stmt=nope
----
ERROR: no prepared statement "nope" on session a

exec
FAIL
----
ERROR 42P01: boom

commit
----
ERROR: no transaction on the session

query session=p dsn=x=1&y=2
SELECT 2
----
who TEXT | ran TEXT | args TEXT | tx TEXT
a#0?x=1&y=2 | SELECT 2 | "" | none
(1 row)

begin session=x db=b
----
ok

begin session=x
----
ERROR: the session is already in a transaction

exec db=a together
MEET
----
ok 0

exec session=x together
MEET
----
ok 0

exec db=c together
MEET
----
ok 0

prepare session=x stmt=q
SELECT 9
----
ok

recreate db=b
----
ok

query session=x stmt=q
----
ERROR: no prepared statement "q" on session x

query session=x
WHO
----
who TEXT | ran TEXT | args TEXT | tx TEXT
b#1 | WHO | "" | none
(1 row)

query db=c
WHO
----
who TEXT | ran TEXT | args TEXT | tx TEXT
c#0 | WHO | "" | none
(1 row)

begin
----
ok

disconnect
----
ok

query
SELECT 3
----
who TEXT | ran TEXT | args TEXT | tx TEXT
a#0 | SELECT 3 | "" | none
(1 row)

query stmt=ins
----
ERROR: no prepared statement "ins" on session a

disconnect session=never
----
ok
`))
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeFront(3, true)
	tgt := f.target()
	if !tgt.Runs(sc) {
		t.Fatal("Runs = false for a target with PgxArgs and Recreate")
	}
	if conformance.RunConns(sc) {
		t.Error("RunConns = true for a scenario with prepared statements, modes, dsn= and several databases")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr, err := conformance.RunConnTarget(ctx, tgt, sc)
	if err != nil {
		t.Fatal(err)
	}
	if o := conformance.CompareExact(sc, sc.Expected(), tr); !o.OK() {
		t.Errorf("transcript differs:\n%s", conformance.Diff(sc, "fake", o))
	}
	var prepared []int // the lines of the prepare steps, which name their statements
	for _, st := range sc.Steps {
		if st.Verb == conformance.Prepare {
			prepared = append(prepared, st.Line)
		}
	}
	want := []string{
		"open c1 a#0",
		fmt.Sprintf("prepare c1 ins_%d INSERT 1", prepared[0]),
		"begin c1 ro",
		fmt.Sprintf("prepare c1 ins_%d INSERT 2", prepared[1]),
		"commit c1",
		"open c2 a#0?x=1&y=2",
		"open c3 b#0",
		"begin c3 rw",
		"open c4 c#0",
		fmt.Sprintf("prepare c3 q_%d SELECT 9", prepared[2]),
		"rollback c3", "close c3", "recreate b",
		"open c5 b#1",
		"begin c1 rw",
		"rollback c1", "close c1",
		"open c6 a#0",
		// The end of the run: every session left, in order of opening.
		"close c2", "close c4", "close c5", "close c6",
	}
	if !slices.Equal(f.log, want) {
		t.Errorf("the front end saw\n\t%s\nwant\n\t%s", strings.Join(f.log, "\n\t"), strings.Join(want, "\n\t"))
	}
	for _, err := range f.errs {
		t.Error(err)
	}
	if len(f.open) != 0 {
		t.Errorf("%d sessions still open after RunConnTarget", len(f.open))
	}
}

// TestRunConnTargetRefuses checks what RunConnTarget refuses: mode=
// without PgxArgs and recreate without Recreate (Runs says so first), and
// a prepare step on a session that is not a StmtConn, known only when it
// runs.
func TestRunConnTargetRefuses(t *testing.T) {
	for _, c := range []struct {
		src   string
		tgt   func(f *fakeFront) conformance.ConnTarget
		runs  bool
		error string
	}{
		{"query mode=simple\nSELECT 1\n----\nx\n", func(f *fakeFront) conformance.ConnTarget {
			tgt := f.target()
			tgt.PgxArgs = false
			return tgt
		}, false, "PgxArgs"},
		{"query db=b\nSELECT 1\n----\nx\n\nrecreate db=b\n----\nok\n", func(f *fakeFront) conformance.ConnTarget {
			tgt := f.target()
			tgt.Recreate = nil
			return tgt
		}, false, "Recreate"},
		{"query\nSELECT 1\n----\nx\n\nprepare stmt=s\nSELECT 1\n----\nok\n", func(f *fakeFront) conformance.ConnTarget {
			f.stmts = false
			return f.target()
		}, true, "not a StmtConn"},
	} {
		sc, err := conformance.Parse("refuse.txt", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		f := newFakeFront(0, true)
		tgt := c.tgt(f)
		if got := tgt.Runs(sc); got != c.runs {
			t.Errorf("Runs(%q) = %v; want %v", c.src, got, c.runs)
		}
		_, err = conformance.RunConnTarget(context.Background(), tgt, sc)
		if err == nil || !strings.Contains(err.Error(), c.error) {
			t.Errorf("RunConnTarget(%q) error = %v; want one naming %s", c.src, err, c.error)
		}
		if len(f.open) != 0 {
			t.Errorf("RunConnTarget(%q): %d sessions left open", c.src, len(f.open))
		}
	}
}

// TestRunConnTargetSQLite runs TestRunSQLite's scenario through
// RunConnTarget, on Conns that are database/sql connections (sqlConn):
// the same outcomes must render byte for byte as Run renders them.
func TestRunConnTargetSQLite(t *testing.T) {
	sc, err := conformance.Parse("sqlite.txt", []byte(sqliteScenario))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "run.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tgt := conformance.ConnTarget{
		Open: func(ctx context.Context, name, params string) (conformance.Conn, error) {
			if name != conformance.DefaultDB || params != "" {
				return nil, fmt.Errorf("unexpected db=%s dsn=%s", name, params)
			}
			c, err := db.Conn(ctx)
			if err != nil {
				return nil, err
			}
			return &sqlConn{c: c, stmts: map[string]*sql.Stmt{}}, nil
		},
	}
	if !tgt.Runs(sc) {
		t.Fatal("the target does not run the scenario")
	}
	tr, err := conformance.RunConnTarget(context.Background(), tgt, sc)
	if err != nil {
		t.Fatal(err)
	}
	if o := conformance.CompareExact(sc, sc.Expected(), tr); !o.OK() {
		t.Errorf("transcript differs:\n%s", conformance.Diff(sc, "sqlite conn", o))
	}
	if s := db.Stats(); s.InUse != 0 {
		t.Errorf("%d connections still in use after RunConnTarget", s.InUse)
	}
}

// fakeFront is a front end of RunConnTarget's for tests: databases that
// count their incarnations (recreations), sessions that answer every query
// with their database, the statement they ran, its arguments and their
// transaction, and a log of what the runner did to them. MEET (exec)
// returns once n sessions have sent it.
type fakeFront struct {
	stmts bool // Open gives StmtConns

	n       int
	mu      sync.Mutex // guards the fields below
	arrived int        // MEETs so far
	met     chan struct{}
	gens    map[string]int       // recreations per database
	conns   int                  // sessions opened so far
	open    map[*fakeConn]string // the open sessions, and their database
	log     []string             // opens, begins, commits, rollbacks, prepares, closes, recreates
	errs    []error              // what went wrong, found by the fake
}

func newFakeFront(n int, stmts bool) *fakeFront {
	return &fakeFront{stmts: stmts, n: n, met: make(chan struct{}), gens: map[string]int{}, open: map[*fakeConn]string{}}
}

func (f *fakeFront) target() conformance.ConnTarget {
	return conformance.ConnTarget{Open: f.Open, Recreate: f.Recreate, PgxArgs: true}
}

func (f *fakeFront) logf(format string, a ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, fmt.Sprintf(format, a...))
}

func (f *fakeFront) Open(_ context.Context, db, params string) (conformance.Conn, error) {
	f.mu.Lock()
	f.conns++
	c := &fakeConn{f: f, id: fmt.Sprintf("c%d", f.conns), who: fmt.Sprintf("%s#%d", db, f.gens[db]), prepared: map[string]string{}}
	if params != "" {
		c.who += "?" + params
	}
	f.open[c] = db
	f.mu.Unlock()
	f.logf("open %s %s", c.id, c.who)
	if f.stmts {
		return fakeStmtConn{c}, nil
	}
	return c, nil
}

func (f *fakeFront) Recreate(_ context.Context, db string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c, on := range f.open {
		if on == db {
			f.errs = append(f.errs, fmt.Errorf("recreate %s: session %s on it still open", db, c.id))
		}
	}
	f.gens[db]++
	f.log = append(f.log, "recreate "+db)
	return nil
}

// fakeConn is a session of a fakeFront.
type fakeConn struct {
	f        *fakeFront
	id, who  string
	tx       string            // "ro", "rw", or "" outside a transaction
	prepared map[string]string // name → statement
}

// fakeStmtConn is a fakeConn that prepares statements.
type fakeStmtConn struct{ *fakeConn }

var _ conformance.StmtConn = fakeStmtConn{}

// Prepare fails for a name already prepared with another statement, as
// pgx's Conn.Prepare does.
func (c fakeStmtConn) Prepare(_ context.Context, name, sql string) error {
	if old, ok := c.prepared[name]; ok && old != sql {
		return fmt.Errorf("prepared statement %q already exists", name)
	}
	c.prepared[name] = sql
	c.f.logf("prepare %s %s %s", c.id, name, sql)
	return nil
}

func (c *fakeConn) Exec(ctx context.Context, sql string, args []any) (int64, error) {
	switch sql {
	case "MEET":
		f := c.f
		f.mu.Lock()
		if f.arrived++; f.arrived == f.n {
			close(f.met)
		}
		f.mu.Unlock()
		select {
		case <-f.met:
			return 0, nil
		case <-time.After(10 * time.Second):
			return 0, errors.New("the other MEETs never came")
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	case "FAIL":
		return 0, &pgconn.PgError{Severity: "ERROR", Code: "42P01", Message: "boom"}
	}
	return int64(len(args)), nil
}

func (c *fakeConn) Query(_ context.Context, sql string, args []any) (*conformance.Result, error) {
	if stmt, ok := c.prepared[sql]; ok {
		sql = "EXECUTE " + stmt
	}
	rendered := make([]string, len(args))
	for i, a := range args {
		rendered[i] = fmt.Sprintf("%T(%v)", a, a)
	}
	tx := c.tx
	if tx == "" {
		tx = "none"
	}
	return &conformance.Result{
		Columns: []string{"who", "ran", "args", "tx"},
		Types:   []string{"TEXT", "TEXT", "TEXT", "TEXT"},
		Rows:    [][]any{{c.who, sql, strings.Join(rendered, ", "), tx}},
	}, nil
}

func (c *fakeConn) Begin(_ context.Context, readOnly bool) error {
	if c.tx != "" {
		return errors.New("fake: already in a transaction")
	}
	c.tx = "rw"
	if readOnly {
		c.tx = "ro"
	}
	c.f.logf("begin %s %s", c.id, c.tx)
	return nil
}

func (c *fakeConn) Commit(context.Context) error   { return c.end("commit") }
func (c *fakeConn) Rollback(context.Context) error { return c.end("rollback") }

func (c *fakeConn) end(verb string) error {
	if c.tx == "" {
		return fmt.Errorf("fake: %s outside a transaction", verb)
	}
	c.tx = ""
	c.f.logf("%s %s", verb, c.id)
	return nil
}

func (c *fakeConn) Close(context.Context) error {
	c.f.mu.Lock()
	_, ok := c.f.open[c]
	delete(c.f.open, c)
	c.f.mu.Unlock()
	if !ok {
		return fmt.Errorf("fake: %s closed twice", c.id)
	}
	c.f.logf("close %s", c.id)
	return nil
}

// sqlConn is a conformance.StmtConn over a database/sql connection, as
// the runner's database/sql sessions use theirs.
type sqlConn struct {
	c     *sql.Conn
	tx    *sql.Tx
	stmts map[string]*sql.Stmt // prepared statements by name
}

// stmt returns the statement prepared as name, for the transaction when
// one is open (closed by done), or nil.
func (s *sqlConn) stmt(ctx context.Context, name string) (stmt *sql.Stmt, done func()) {
	stmt = s.stmts[name]
	if stmt == nil || s.tx == nil {
		return stmt, func() {}
	}
	stmt = s.tx.StmtContext(ctx, stmt)
	return stmt, func() { stmt.Close() }
}

func (s *sqlConn) Exec(ctx context.Context, query string, args []any) (int64, error) {
	var (
		res sql.Result
		err error
	)
	if stmt, done := s.stmt(ctx, query); stmt != nil {
		defer done()
		res, err = stmt.ExecContext(ctx, args...)
	} else if s.tx != nil {
		res, err = s.tx.ExecContext(ctx, query, args...)
	} else {
		res, err = s.c.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *sqlConn) Query(ctx context.Context, query string, args []any) (*conformance.Result, error) {
	var (
		rows *sql.Rows
		err  error
	)
	if stmt, done := s.stmt(ctx, query); stmt != nil {
		defer done()
		rows, err = stmt.QueryContext(ctx, args...)
	} else if s.tx != nil {
		rows, err = s.tx.QueryContext(ctx, query, args...)
	} else {
		rows, err = s.c.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	res := &conformance.Result{}
	for _, c := range cols {
		res.Columns = append(res.Columns, c.Name())
		res.Types = append(res.Types, c.DatabaseTypeName())
	}
	for rows.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, row)
	}
	return res, rows.Err()
}

func (s *sqlConn) Prepare(ctx context.Context, name, query string) error {
	stmt, err := s.c.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	s.stmts[name] = stmt
	return nil
}

func (s *sqlConn) Begin(ctx context.Context, readOnly bool) error {
	tx, err := s.c.BeginTx(ctx, &sql.TxOptions{ReadOnly: readOnly})
	if err != nil {
		return err
	}
	s.tx = tx
	return nil
}

func (s *sqlConn) Commit(context.Context) error {
	tx := s.tx
	s.tx = nil
	return tx.Commit()
}

func (s *sqlConn) Rollback(context.Context) error {
	tx := s.tx
	s.tx = nil
	return tx.Rollback()
}

// Close discards the connection (driver.ErrBadConn from Raw), as the
// runner's disconnect does: its database session ends. A transaction left
// open is rolled back first (Raw would wait for it).
func (s *sqlConn) Close(context.Context) error {
	if s.tx != nil {
		_ = s.tx.Rollback()
		s.tx = nil
	}
	for _, stmt := range s.stmts {
		stmt.Close()
	}
	if err := s.c.Raw(func(any) error { return driver.ErrBadConn }); !errors.Is(err, driver.ErrBadConn) {
		return fmt.Errorf("the connection was not discarded: %v", err)
	}
	return nil
}
