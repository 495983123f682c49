package conformance_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // driver "sqlite": exercises the runner without a server

	"github.com/seqshim/seqshim/conformance"
)

// TestRunSQLite runs every kind of step on SQLite, which needs no server:
// the runner's sessions, statements, transactions and rendering are checked
// here, PostgreSQL's specifics in TestConformance.
func TestRunSQLite(t *testing.T) {
	sc, err := conformance.Parse("sqlite.txt", []byte(`# The runner on SQLite.
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
`))
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
