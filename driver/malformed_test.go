package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
)

// malformedCorpus are texts PostgreSQL refuses ({s} is a sequence, {t} a
// table, {u} a table whose id is serial, created through seqshim: its
// default is drawn from the store): issue 23's input, parentheses that do not pair up,
// unterminated literals and comments, truncated sequence statements,
// strings whose last statement is broken after a sequence call or DDL in
// the first, and bytes that are no SQL.
var malformedCorpus = []string{
	`SELECT (NEXT VALUE FOR"0" `,

	"SELECT nextval(",
	"SELECT nextval('{s}'",
	"SELECT nextval('{s}'))",
	"SELECT (nextval('{s}')",
	"SELECT nextval(('{s}')",
	")SELECT nextval('{s}')",
	"SELECT nextval('{s}') FROM (SELECT 1",
	"SELECT setval('{s}', 5",
	"SELECT setval('{s}', 5,",
	"SELECT currval('{s}'",
	"SELECT lastval(",
	"SELECT ARRAY[nextval('{s}')",
	"SELECT nextval('{s}')]",
	"INSERT INTO {t} (",
	"INSERT INTO {t} (id, v VALUES (nextval('{s}'), 'x')",
	"INSERT INTO {t} VALUES (nextval('{s}'), 'x'",
	"INSERT INTO {t} VALUES (nextval('{s}'), 'x')), (2, 'y')",
	"CREATE SEQUENCE {s}_new (",
	"CREATE SEQUENCE {s}_new START (1",
	"ALTER SEQUENCE {s} RESTART WITH (5",

	"SELECT nextval('{s}'), 'oops",
	"SELECT nextval('{s}), 1",
	`SELECT nextval(E'{s}\')`,
	`SELECT nextval('{s}'), "oops`,
	"SELECT nextval('{s}') /* oops",
	"SELECT nextval('{s}') /* /* nested */",
	"SELECT nextval('{s}'), $a$ oops",
	"SELECT nextval('{s}'), $$ oops $a$",
	"SELECT nextval(U&'{s}",

	"ALTER SEQUENCE",
	"ALTER SEQUENCE {s}",
	"ALTER SEQUENCE {s} RESTART WITH",
	"ALTER SEQUENCE {s} INCREMENT BY",
	"ALTER SEQUENCE {s} RENAME TO",
	"CREATE SEQUENCE",
	"CREATE SEQUENCE {s}_new START",
	"CREATE SEQUENCE {s}_new INCREMENT BY",
	"CREATE SEQUENCE {s}_new AS",
	"DROP SEQUENCE",
	"DROP SEQUENCE {s},",
	"SELECT nextval('{s}') +",
	"SELECT nextval('{s}'),",
	"SELECT nextval('{s}') AS",
	"SELECT nextval('{s}') FROM",
	"SELECT nextval('{s}')::",
	"SELECT nextval('{s}'),, 1",
	"SELECT setval('{s}', 5, )",
	"INSERT INTO {u} VALUES ()",
	"INSERT INTO {u} (v) VALUES ('x', )",
	"INSERT INTO {u} (v) VALUES ('x'), ()",
	"INSERT INTO {t} VALUES (nextval('{s}'), 'x') RETURNING",

	"SELECT nextval('{s}'); SELECT nextval(",
	"SELECT nextval('{s}'); SELEC 1",
	"SELECT nextval('{s}'); SELECT 1 +",
	"SELECT nextval('{s}'); INSERT INTO {t} (",
	"INSERT INTO {t} VALUES (nextval('{s}'), 'a'); INSERT INTO {t} VALUES (",
	"SELECT setval('{s}', 1000); SELECT ,",
	"ALTER SEQUENCE {s} RESTART WITH 1000; SELECT (",
	"ALTER SEQUENCE {s} RESTART WITH 1000; SELEC 1",
	"CREATE SEQUENCE {s}_new; SELECT (",
	"CREATE SEQUENCE {s}_new; SELEC 1",
	"DROP SEQUENCE {s}; SELECT 1 +",
	"SELECT nextval('{s}'); SELECT 'oops",
	"SELECT nextval('{s}'); SELECT (SELECT 1; SELECT 2)",
	"INSERT INTO {u} (v) VALUES ('x') RETURNING",
	"INSERT INTO {u} (v) VALUES ('x'), ('y'",
	"INSERT INTO {u} DEFAULT VALUES RETURNING",
	"INSERT INTO {u} (v) VALUES ('x'); INSERT INTO {u} (v) VALUES (",
	"INSERT INTO {u} (v) VALUES ('x'); SELEC 1",
	"INSERT INTO {u} (v) VALUES ('x'); SELECT 'oops",

	"\xff\xfe nextval('{s}')",
	"SELECT nextval('{s}'), '\xff'",
	"SELECT nextval('{s}') /* \xc3\x28 */",
	"SELECT nextval('{s}')\x01",
	"SELECT\vnextval('{s}')",
	"SELECT nextval('{s}')\x00",
	"\x00\x01\x02nextval",
	"))((nextval('{s}')",
	"nextval('{s}')",
	"'{s}' nextval",
	"$1 nextval('{s}')",
}

// TestPGMalformed sends each text of malformedCorpus natively and through
// seqshim (a memory: store), with Exec, Query and Prepare (then Exec),
// outside and inside a transaction, on one connection each, and checks:
// seqshim fails whenever PostgreSQL does, with the same SQLSTATE; the
// sequences move as much through seqshim (in its store) as natively (not
// at all: nothing of a refused string runs), and the database's sequence
// does not move through seqshim (no call reaches it); no sequence is
// created or dropped in the store; the connection answers SELECT 1
// afterwards, and inside a transaction gives the same error as natively
// before the rollback (25P02: the transaction is aborted).
func TestPGMalformed(t *testing.T) {
	pg := testenv.PG(t)
	ctx := context.Background()
	native := nativeDB(t)
	seq, tbl, ser := uniq(t, "mf"), uniq(t, "mft"), uniq(t, "mfu")
	storeURL := "memory:" + uniq(t, "malformed")
	sep := "?"
	if strings.Contains(pg, "?") {
		sep = "&"
	}
	shim, err := sql.Open("seqshim", pg+sep+"seqshim.store="+url.QueryEscape(storeURL))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shim.Close() })
	st, err := memstore.Open(storeURL) // the driver's store: memory: stores are per process
	if err != nil {
		t.Fatal(err)
	}
	// seqshim first: it refuses a name the database uses (42P07). Its
	// fenced twin is then replaced by a sequence of the database's own, as
	// after seqctl import: the native one moves natively, the store's
	// through seqshim.
	mustExec(t, shim, "CREATE SEQUENCE "+seq)
	mustExec(t, native, "DROP SEQUENCE "+seq)
	mustExec(t, native, "CREATE SEQUENCE "+seq)
	mustExec(t, native, "CREATE TABLE "+tbl+" (id bigint, v text)")
	mustExec(t, shim, "CREATE TABLE "+ser+" (id serial, v text)")
	t.Cleanup(func() {
		native.Exec("DROP TABLE IF EXISTS " + tbl)
		shim.Exec("DROP TABLE IF EXISTS " + ser)
		native.Exec("DROP TABLE IF EXISTS " + ser)
		native.Exec("DROP SEQUENCE IF EXISTS " + seq)
		native.Exec("DROP SEQUENCE IF EXISTS " + seq + "_new")
	})
	stored, err := st.List(ctx)
	if err != nil || len(stored) != 2 {
		t.Fatalf("store: %+v, %v; want %s and the serial's sequence", stored, err, seq)
	}
	queryInt64(t, native, "SELECT nextval('"+seq+"')") // is_called from now on: last_value counts the values
	dbLast := func() int64 { return queryInt64(t, native, "SELECT last_value FROM "+seq) }
	// storeMoved returns how many values each store sequence gave since
	// the last call, probing each with one nextval.
	probes := make([]int64, len(stored))
	storeMoved := func() []int64 {
		moved := make([]int64, len(stored))
		for i, info := range stored {
			v := queryInt64(t, shim, "SELECT nextval($1)", info.Name)
			moved[i] = v - probes[i] - 1
			probes[i] = v
		}
		return moved
	}
	storeMoved()

	repl := strings.NewReplacer("{s}", seq, "{t}", tbl, "{u}", ser)
	for i, text := range malformedCorpus {
		query := repl.Replace(text)
		for _, mode := range []string{"exec", "query", "prepare"} {
			for _, inTx := range []bool{false, true} {
				name := fmt.Sprintf("%d/%s/tx=%v", i, mode, inTx)
				t.Run(name, func(t *testing.T) {
					before := dbLast()
					nat := runMalformed(t, ctx, native, query, mode, inTx)
					nativeMoved := dbLast() - before
					if nat.err == nil {
						t.Fatalf("%q: PostgreSQL accepted it: not a malformed text", query)
					}
					before = dbLast()
					got := runMalformed(t, ctx, shim, query, mode, inTx)
					if moved := dbLast() - before; moved != 0 {
						t.Errorf("%q: the database's sequence moved by %d through seqshim", query, moved)
					}
					if infos, err := st.List(ctx); err != nil || len(infos) != 2 || infos[0].Name != stored[0].Name || infos[1].Name != stored[1].Name {
						t.Fatalf("%q: the store's sequences changed: %+v, %v", query, infos, err)
					}
					for i, moved := range storeMoved() {
						want := int64(0) // the serial's: no sequence of the database
						if stored[i].Name == seq {
							want = nativeMoved
						}
						if moved != want {
							t.Errorf("%q: %s moved by %d through seqshim, by %d natively", query, stored[i].Name, moved, want)
						}
					}
					if got.err == nil {
						t.Fatalf("%q: seqshim accepted it; PostgreSQL: %v", query, nat.err)
					}
					if n, g := sqlState(nat.err), sqlState(got.err); n != "" && g != n {
						t.Errorf("%q: seqshim: %v (%s), PostgreSQL: %v (%s)", query, got.err, g, nat.err, n)
					}
					if inTx && sqlState(got.after) != sqlState(nat.after) {
						t.Errorf("%q: in the transaction afterwards seqshim gives %v, PostgreSQL %v", query, got.after, nat.after)
					}
					if got.usable != nil {
						t.Errorf("%q: the connection is not usable afterwards: %v", query, got.usable)
					}
				})
			}
		}
	}
}

// malformedResult is what one run of a malformed text gave: its error, the
// error of SELECT 1 in the same transaction (inside one), and the error of
// SELECT 1 on the connection at the end.
type malformedResult struct{ err, after, usable error }

// runMalformed runs query on a connection of its own, by mode (exec, query,
// prepare: Prepare then Exec), in a transaction if inTx.
func runMalformed(t *testing.T, ctx context.Context, db *sql.DB, query, mode string, inTx bool) malformedResult {
	t.Helper()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	type runner interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
		PrepareContext(context.Context, string) (*sql.Stmt, error)
	}
	var r runner = c
	var tx *sql.Tx
	if inTx {
		if tx, err = c.BeginTx(ctx, nil); err != nil {
			t.Fatal(err)
		}
		r = tx
	}
	var res malformedResult
	switch mode {
	case "exec":
		_, res.err = r.ExecContext(ctx, query)
	case "query":
		var rows *sql.Rows
		if rows, res.err = r.QueryContext(ctx, query); res.err == nil {
			for rows.Next() {
			}
			res.err = rows.Err()
			rows.Close()
		}
	case "prepare":
		var st *sql.Stmt
		if st, res.err = r.PrepareContext(ctx, query); res.err == nil {
			_, res.err = st.ExecContext(ctx)
			st.Close()
		}
	}
	if tx != nil {
		_, res.after = tx.ExecContext(ctx, "SELECT 1")
		tx.Rollback()
	}
	_, res.usable = c.ExecContext(ctx, "SELECT 1")
	return res
}

// sqlState is the SQLSTATE of a *pgconn.PgError, or "".
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
