package conformance_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

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
