package driver_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// valueForm is one spelling of "the next value of the sequence" that seqshim
// recognises. expr is a format with the sequence name as %[1]s (in upper
// case as %[3]s) and, when bound is set, the number of the parameter carrying
// the name as %[2]d.
type valueForm struct {
	name  string
	expr  string
	bound bool
}

var valueForms = []valueForm{
	{"nextval", "nextval('%[1]s')", false},
	{"pg_catalog.nextval", "pg_catalog.nextval('%[1]s')", false},
	{"regclass cast", "nextval('public.%[1]s'::regclass)", false},
	{"quoted name", "nextval('\"%[1]s\"')", false},
	{"upper case", "NEXTVAL('%[3]s')", false},
	{"getNextSequenceValue", "getNextSequenceValue('%[1]s')", false},
	{"Oracle NEXTVAL", "%[1]s.NEXTVAL", false},
	{"NEXT VALUE FOR", "NEXT VALUE FOR %[1]s", false},
	{"name as parameter", "nextval($%[2]d)", true},
}

// pathEnv is what one execution path needs: a pinned connection, the
// sequence and table, and the form to spell the call with.
type pathEnv struct {
	ctx  context.Context
	conn *sql.Conn
	seq  string
	tbl  string
	form valueForm
}

// expr spells the call; param is the number of the parameter carrying the
// name, for forms that bind it.
func (e *pathEnv) expr(param int) string {
	return fmt.Sprintf(e.form.expr, e.seq, param, strings.ToUpper(e.seq))
}

// args are the statement's arguments: the caller's, then the name if the
// form binds it.
func (e *pathEnv) args(args ...any) []any {
	if e.form.bound {
		args = append(args, e.seq)
	}
	return args
}

// insert is an INSERT of one row whose id is the call, v bound as $1 (or
// inlined as 'inline' when bind is false).
func (e *pathEnv) insert(bind bool) string {
	if !bind {
		return fmt.Sprintf("INSERT INTO %s (id, v) VALUES (%s, 'inline')", e.tbl, e.expr(1))
	}
	return fmt.Sprintf("INSERT INTO %s (id, v) VALUES (%s, $1)", e.tbl, e.expr(2))
}

func (e *pathEnv) queryRow(tb testing.TB, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, query string, args ...any) int64 {
	tb.Helper()
	var v int64
	if err := q.QueryRowContext(e.ctx, query, args...).Scan(&v); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return v
}

func (e *pathEnv) currval(tb testing.TB) int64 {
	return e.queryRow(tb, e.conn, "SELECT currval('"+e.seq+"')")
}

// executionPaths run one form through each way database/sql and pgx can
// carry a statement, and return the values drawn, in order. inserted is how
// many rows each left in the table.
var executionPaths = []struct {
	name     string
	inserted int
	run      func(t *testing.T, e *pathEnv) []int64
}{
	{"QueryRowContext local", 0, func(t *testing.T, e *pathEnv) []int64 {
		return []int64{e.queryRow(t, e.conn, "SELECT "+e.expr(1), e.args()...)}
	}},
	{"ExecContext local", 0, func(t *testing.T, e *pathEnv) []int64 {
		if _, err := e.conn.ExecContext(e.ctx, "SELECT "+e.expr(1), e.args()...); err != nil {
			t.Fatal(err)
		}
		return []int64{e.currval(t)}
	}},
	{"QueryContext local", 0, func(t *testing.T, e *pathEnv) []int64 {
		return queryAll(t, e, e.conn, "SELECT "+e.expr(1), e.args()...)
	}},
	{"ExecContext INSERT bound", 1, func(t *testing.T, e *pathEnv) []int64 {
		res, err := e.conn.ExecContext(e.ctx, e.insert(true), e.args("exec")...)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := res.RowsAffected(); n != 1 || err != nil {
			t.Errorf("RowsAffected %d, %v; want 1", n, err)
		}
		return []int64{e.currval(t)}
	}},
	{"ExecContext INSERT inline", 1, func(t *testing.T, e *pathEnv) []int64 {
		if e.form.bound {
			return execBoundAgain(t, e) // no argument-free spelling
		}
		if _, err := e.conn.ExecContext(e.ctx, e.insert(false)); err != nil {
			t.Fatal(err)
		}
		return []int64{e.currval(t)}
	}},
	{"QueryRowContext RETURNING bound", 1, func(t *testing.T, e *pathEnv) []int64 {
		return []int64{e.queryRow(t, e.conn, e.insert(true)+" RETURNING id", e.args("returning")...)}
	}},
	{"QueryRowContext RETURNING inline", 1, func(t *testing.T, e *pathEnv) []int64 {
		if e.form.bound {
			return execBoundAgain(t, e)
		}
		return []int64{e.queryRow(t, e.conn, e.insert(false)+" RETURNING id")}
	}},
	{"QueryContext RETURNING", 1, func(t *testing.T, e *pathEnv) []int64 {
		return queryAll(t, e, e.conn, e.insert(true)+" RETURNING id", e.args("rows")...)
	}},
	{"prepared INSERT, three executions", 3, func(t *testing.T, e *pathEnv) []int64 {
		st, err := e.conn.PrepareContext(e.ctx, e.insert(true)+" RETURNING id")
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var got []int64
		for i := range 3 {
			got = append(got, stmtInt64(t, e, st, e.args(fmt.Sprint("prepared ", i))...))
		}
		return got
	}},
	{"prepared local SELECT, three executions", 0, func(t *testing.T, e *pathEnv) []int64 {
		st, err := e.conn.PrepareContext(e.ctx, "SELECT "+e.expr(1))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var got []int64
		for range 3 {
			got = append(got, stmtInt64(t, e, st, e.args()...))
		}
		return got
	}},
	{"transaction committed", 2, func(t *testing.T, e *pathEnv) []int64 {
		tx, err := e.conn.BeginTx(e.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := e.queryRow(t, tx, e.insert(true)+" RETURNING id", e.args("tx 1")...)
		if _, err := tx.ExecContext(e.ctx, e.insert(true), e.args("tx 2")...); err != nil {
			t.Fatal(err)
		}
		b := e.queryRow(t, tx, "SELECT currval('"+e.seq+"')")
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return []int64{a, b}
	}},
	{"transaction rolled back", 0, func(t *testing.T, e *pathEnv) []int64 {
		tx, err := e.conn.BeginTx(e.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := e.queryRow(t, tx, e.insert(true)+" RETURNING id", e.args("rolled back")...)
		b := e.queryRow(t, tx, "SELECT "+e.expr(1), e.args()...)
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		// As in PostgreSQL, the values stay used: currval survives the rollback.
		if got := e.currval(t); got != b {
			t.Errorf("currval after rollback %d, want %d", got, b)
		}
		return []int64{a, b}
	}},
	{"multi-statement string", 2, func(t *testing.T, e *pathEnv) []int64 {
		if e.form.bound {
			// pgx sends a string with arguments as one prepared statement,
			// which PostgreSQL refuses to hold two commands: two executions.
			return append(execBoundAgain(t, e), execBoundAgain(t, e)...)
		}
		q := fmt.Sprintf("INSERT INTO %[1]s (id, v) VALUES (%[2]s, 'm1 %[3]s'); INSERT INTO %[1]s (id, v) VALUES (%[2]s, 'm2 %[3]s') ; SELECT 1",
			e.tbl, e.expr(1), e.form.name)
		if _, err := e.conn.ExecContext(e.ctx, q); err != nil {
			t.Fatal(err)
		}
		first := e.queryRow(t, e.conn, "SELECT id FROM "+e.tbl+" WHERE v = $1", "m1 "+e.form.name)
		second := e.queryRow(t, e.conn, "SELECT id FROM "+e.tbl+" WHERE v = $1", "m2 "+e.form.name)
		return []int64{first, second}
	}},
}

// execBoundAgain stands in for a path that has no spelling with the name
// bound: the bound INSERT once more, so every path inserts the same count.
func execBoundAgain(t *testing.T, e *pathEnv) []int64 {
	t.Helper()
	return []int64{e.queryRow(t, e.conn, e.insert(true)+" RETURNING id", e.args("again")...)}
}

func stmtInt64(t *testing.T, e *pathEnv, st *sql.Stmt, args ...any) int64 {
	t.Helper()
	var v int64
	if err := st.QueryRowContext(e.ctx, args...).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func queryAll(t *testing.T, e *pathEnv, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) []int64 {
	t.Helper()
	rows, err := q.QueryContext(e.ctx, query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%s: %d rows, want 1", query, len(got))
	}
	return got
}

// TestPGFormsByPath runs every spelling of nextval through every execution
// path (QueryContext, ExecContext, QueryRowContext, prepared, transactions
// committed and rolled back, multi-statement strings, RETURNING) and every
// pgx QueryExecMode, against PostgreSQL 15 with each store. One process draws
// from one sequence throughout, so the values must be distinct and
// increasing in the order drawn; after each path currval and lastval are the
// last value drawn on that session, and the table holds exactly the rows
// inserted and not rolled back, with ids the application saw.
func TestPGFormsByPath(t *testing.T) {
	native := nativeDB(t)
	modes := []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe,
		pgx.QueryExecModeDescribeExec, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol}
	for _, sk := range storeKinds {
		t.Run(sk.name, func(t *testing.T) {
			ctx := context.Background()
			db := seqshimDB(t, sk.open(t))
			seq, tbl := uniq(t, "s"), uniq(t, "t")
			mustExec(t, db, "CREATE SEQUENCE "+seq)
			mustExec(t, native, "CREATE TABLE "+tbl+" (id bigint PRIMARY KEY, v text)")
			t.Cleanup(func() { native.Exec("DROP TABLE " + tbl) })
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()

			var drawn []int64
			inserted := 0
			check := func(t *testing.T, e *pathEnv, got []int64) {
				t.Helper()
				if len(got) == 0 {
					t.Fatal("no value drawn")
				}
				drawn = append(drawn, got...)
				last := got[len(got)-1]
				if c := e.currval(t); c != last {
					t.Errorf("currval %d, want %d", c, last)
				}
				if l := e.queryRow(t, conn, "SELECT lastval()"); l != last {
					t.Errorf("lastval %d, want %d", l, last)
				}
			}
			for _, form := range valueForms {
				t.Run(form.name, func(t *testing.T) {
					e := &pathEnv{ctx: ctx, conn: conn, seq: seq, tbl: tbl, form: form}
					for _, p := range executionPaths {
						t.Run(p.name, func(t *testing.T) {
							check(t, e, p.run(t, e))
							inserted += p.inserted
						})
					}
					for _, mode := range modes {
						t.Run(mode.String(), func(t *testing.T) {
							var got []int64
							got = append(got, e.queryRow(t, conn, e.insert(true)+" RETURNING id", append([]any{mode}, e.args("mode")...)...))
							if _, err := conn.ExecContext(ctx, e.insert(true), append([]any{mode}, e.args("mode exec")...)...); err != nil {
								t.Fatal(err)
							}
							got = append(got, e.currval(t))
							got = append(got, e.queryRow(t, conn, "SELECT "+e.expr(1), append([]any{mode}, e.args()...)...))
							check(t, e, got)
							inserted += 2
						})
					}
				})
			}

			if !slices.IsSorted(drawn) || len(slices.Compact(slices.Clone(drawn))) != len(drawn) {
				t.Errorf("values not distinct and increasing in the order drawn: %v", drawn)
			}
			rows, err := native.QueryContext(ctx, "SELECT id, v FROM "+tbl)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			stored := 0
			for rows.Next() {
				var id int64
				var v string
				if err := rows.Scan(&id, &v); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(v, "rolled back") {
					t.Errorf("rolled back row %d (%q) is in the table", id, v)
				}
				if _, found := slices.BinarySearch(drawn, id); !found {
					t.Errorf("stored id %d (%q) was never returned to the application", id, v)
				}
				stored++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if stored != inserted {
				t.Errorf("%d rows in the table, want %d", stored, inserted)
			}
		})
	}
}
