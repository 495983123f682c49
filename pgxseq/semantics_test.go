package pgxseq_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jackc/pgx/v5/stdlib"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/pgxseq"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite" // sqlite: stores
)

func nextval(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, seq string) int64 {
	t.Helper()
	var v int64
	if err := q.QueryRow(context.Background(), "SELECT nextval('"+seq+"')").Scan(&v); err != nil {
		t.Fatalf("nextval(%s): %v", seq, err)
	}
	return v
}

// TestSharedCache: a process using both front ends on one store URL
// shares one cache: the values of the two never repeat, and continue each
// other.
func TestSharedCache(t *testing.T) {
	ctx := context.Background()
	dbURL := createDatabase(t)
	store := "memory:" + t.Name()
	pool, err := pgxseq.New(ctx, withStore(t, dbURL, store))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	connector, err := seqdriver.NewConnector(stdlib.GetConnector(*cfg), func(o *seqdriver.Options) { o.StoreURL = store })
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	mustExec(t, pool, "CREATE SEQUENCE s")
	var got []int64
	for i := range 6 {
		if i%2 == 0 {
			got = append(got, nextval(t, pool, "s"))
			continue
		}
		var v int64
		if err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if !slices.Equal(got, []int64{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("values %v, want 1…6 from one cache", got)
	}
	if pool.Cache() == nil || pool.Cache() != connector.Cache() {
		t.Fatal("the two front ends have caches of their own")
	}
}

// TestTransactions: sequence DDL in a transaction reaches the store only
// when it commits; an error seqshim answers aborts the transaction in the
// database (25P02 after it), as PostgreSQL's errors do; nested Begin is a
// savepoint.
func TestTransactions(t *testing.T) {
	ctx := context.Background()
	pool, _ := newPool(t)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "CREATE SEQUENCE s START 10")
	if v := nextval(t, tx, "s"); v != 10 {
		t.Fatalf("nextval in the transaction: %d", v)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); !errors.Is(err, pgx.ErrTxClosed) {
		t.Fatalf("Rollback after Commit: %v", err)
	}
	if v := nextval(t, pool, "s"); v != 11 {
		t.Fatalf("nextval after the commit: %d", v)
	}

	tx, err = pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, "SELECT nextval('nope')")
	if pgCode(err) != "42P01" {
		t.Fatalf("missing sequence: %v", err)
	}
	_, err = tx.Exec(ctx, "SELECT 1")
	if pgCode(err) != "25P02" {
		t.Fatalf("after an error in the transaction: %v, want 25P02", err)
	}
	if err := tx.Commit(ctx); !errors.Is(err, pgx.ErrTxCommitRollback) {
		t.Fatalf("Commit of a failed transaction: %v", err)
	}

	// A savepoint rolled back takes its DDL with it.
	tx, err = pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, sp, "CREATE SEQUENCE s2")
	if err := sp.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "CREATE SEQUENCE s3")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "SELECT nextval('s2')"); pgCode(err) != "42P01" {
		t.Fatalf("s2 after its savepoint was rolled back: %v", err)
	}
	if v := nextval(t, pool, "s3"); v != 1 {
		t.Fatalf("s3: %d", v)
	}
}

// TestBatch: each queued statement planned and drawn for; a batch is one
// implicit transaction, so a failing statement rolls back those before it
// (and their sequence DDL never reaches the store) and the statements
// after it report its error; callbacks run at Close; Batch.BeginTx.
func TestBatch(t *testing.T) {
	ctx := context.Background()
	pool, _ := newPool(t)
	mustExec(t, pool, "CREATE TABLE t (id bigserial PRIMARY KEY, v text UNIQUE)")

	b := &pgx.Batch{}
	b.Queue("INSERT INTO t (v) VALUES ($1)", "a")
	b.Queue("CREATE SEQUENCE s")
	b.Queue("INSERT INTO t (v) VALUES ($1)", "a") // a duplicate: fails
	b.Queue("INSERT INTO t (v) VALUES ($1)", "b")
	br := pool.SendBatch(ctx, b)
	for i, want := range []string{"", "", "23505", "23505"} {
		_, err := br.Exec()
		if pgCode(err) != want {
			t.Fatalf("statement %d: %v, want %q", i, err, want)
		}
	}
	if err := br.Close(); pgCode(err) != "23505" {
		t.Fatalf("Close: %v", err)
	}
	var n int64
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after the failed batch: %d, %v", n, err)
	}
	if _, err := pool.Exec(ctx, "SELECT nextval('s')"); pgCode(err) != "42P01" {
		t.Fatalf("the failed batch's sequence: %v, want 42P01", err)
	}

	// Callbacks, run by Close in order.
	b = &pgx.Batch{}
	var ids []int64
	for _, v := range []string{"x", "y", "z"} {
		b.Queue("INSERT INTO t (v) VALUES ($1) RETURNING id", v).QueryRow(func(r pgx.Row) error {
			var id int64
			err := r.Scan(&id)
			ids = append(ids, id)
			return err
		})
	}
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []int64{3, 4, 5}) { // 1 and 2 went to the failed batch (the duplicate drew 2 before it failed): a gap, as in PostgreSQL
		t.Fatalf("ids %v", ids)
	}

	// A batch that begins a transaction: its Tx commits through seqshim.
	b = &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{})
	b.Queue("CREATE SEQUENCE s4 START 40")
	b.Queue("SELECT nextval('s4')")
	br = pool.SendBatch(ctx, b)
	tx := br.Tx()
	if tx == nil {
		t.Fatal("no Tx for a batch with BeginTx")
	}
	var v int64
	if _, err := br.Exec(); err != nil {
		t.Fatal(err)
	}
	if _, err := br.Exec(); err != nil {
		t.Fatal(err)
	}
	if err := br.QueryRow().Scan(&v); err != nil || v != 40 {
		t.Fatalf("nextval in the batch's transaction: %d, %v", v, err)
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if v := nextval(t, pool, "s4"); v != 41 {
		t.Fatalf("s4 after the commit: %d", v)
	}
}

// TestPrepared: a statement prepared by name runs by name, in a
// transaction too; one with a sequence call draws at each execution.
func TestPrepared(t *testing.T) {
	ctx := context.Background()
	_, dbURL := newPool(t)
	c, err := pgxseq.Connect(ctx, withStore(t, dbURL, "memory:"+t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	mustExec(t, c, "CREATE SEQUENCE s")
	mustExec(t, c, "CREATE TABLE t (id bigserial PRIMARY KEY, v text)")
	for _, p := range [][2]string{{"next", "SELECT nextval('s')"}, {"ins", "INSERT INTO t (v) VALUES ($1) RETURNING id"}, {"one", "SELECT $1::int + 1"}} {
		if _, err := c.Prepare(ctx, p[0], p[1]); err != nil {
			t.Fatalf("Prepare %s: %v", p[0], err)
		}
	}
	for want := int64(1); want <= 3; want++ {
		if v := nextval(t, c, "s"); v != 2*want-1 {
			t.Fatalf("nextval: %d", v)
		}
		var v int64
		if err := c.QueryRow(ctx, "next").Scan(&v); err != nil || v != 2*want {
			t.Fatalf("prepared nextval: %d, %v", v, err)
		}
		if err := c.QueryRow(ctx, "ins", "x").Scan(&v); err != nil || v != want {
			t.Fatalf("prepared INSERT: %d, %v", v, err)
		}
	}
	var n int
	if err := c.QueryRow(ctx, "one", 41).Scan(&n); err != nil || n != 42 {
		t.Fatalf("prepared pass-through: %d, %v", n, err)
	}
	if err := c.Deallocate(ctx, "next"); err != nil {
		t.Fatal(err)
	}
	if err := c.Deallocate(ctx, "one"); err != nil {
		t.Fatal(err)
	}
}

// TestArguments: StrictNamedArgs and a QueryRewriter of the program's own
// are applied before the statement is planned; QueryResultFormats pass on.
func TestArguments(t *testing.T) {
	ctx := context.Background()
	pool, _ := newPool(t)
	mustExec(t, pool, "CREATE SEQUENCE s")
	var v, w int64
	if err := pool.QueryRow(ctx, "SELECT nextval(@seq), @n::int8", pgx.StrictNamedArgs{"seq": "s", "n": 7}).Scan(&v, &w); err != nil || v != 1 || w != 7 {
		t.Fatalf("StrictNamedArgs: %d %d %v", v, w, err)
	}
	if _, err := pool.Exec(ctx, "SELECT nextval(@seq)", pgx.StrictNamedArgs{}); err == nil || !strings.Contains(err.Error(), "seq") {
		t.Fatalf("StrictNamedArgs without the argument: %v", err)
	}
	if err := pool.QueryRow(ctx, "SELECT nextval('s') + 0", rewriter{}).Scan(&v); err != nil || v != 2 {
		t.Fatalf("QueryRewriter: %d %v", v, err)
	}
	rows, err := pool.Query(ctx, "SELECT nextval('s')", pgx.QueryResultFormats{pgx.TextFormatCode})
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || !slices.Equal(got, []int64{3}) {
		t.Fatalf("with QueryResultFormats: %v %v", got, err)
	}
	// pgx.ForEachRow over rows answered here.
	rows, _ = pool.Query(ctx, "SELECT nextval('s') FROM generate_series(1, 3)")
	var seen []int64
	if _, err := pgx.ForEachRow(rows, []any{&v}, func() error { seen = append(seen, v); return nil }); err != nil || !slices.Equal(seen, []int64{4, 5, 6}) {
		t.Fatalf("ForEachRow: %v %v", seen, err)
	}
}

// rewriter turns "nextval('s') + 0" into "nextval('s')".
type rewriter struct{}

func (rewriter) RewriteQuery(_ context.Context, _ *pgx.Conn, sql string, args []any) (string, []any, error) {
	return strings.ReplaceAll(sql, " + 0", ""), args, nil
}

// TestUnsupported: what seqshim cannot serve fails with 0A000, and the
// database's own sequence never answers.
func TestUnsupported(t *testing.T) {
	ctx := context.Background()
	pool, _ := newPool(t)
	mustExec(t, pool, "CREATE SEQUENCE s")
	mustExec(t, pool, "CREATE TABLE t (x int)")
	mustExec(t, pool, "INSERT INTO t VALUES (1), (2)")
	_, err := pool.Exec(ctx, "UPDATE t SET x = nextval('s') WHERE x > 0 RETURNING x")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Fatalf("a per-row call seqshim cannot serve: %v, want 0A000", err)
	}
	if v := nextval(t, pool, "s"); v != 1 {
		t.Fatalf("nextval after the refusal: %d (the refused statement drew)", v)
	}
}

// TestCopyFrom: the ids of a COPY leaving them out come from the store,
// in a transaction that created the table too (its sequence held until
// COMMIT); a COPY giving them, into an identity column or a temporary
// table, is the database's.
func TestCopyFrom(t *testing.T) {
	ctx := context.Background()
	pool, _ := newPool(t)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (START 100) PRIMARY KEY, v text)")
	var a pgxseq.Assigned
	n, err := tx.CopyFrom(pgxseq.WithAssigned(ctx, &a), pgx.Identifier{"public", "t"}, []string{"v"}, pgx.CopyFromSlice(3, func(i int) ([]any, error) { return []any{"r"}, nil }))
	if err != nil || n != 3 || !slices.Equal(a.Values, []int64{100, 101, 102}) {
		t.Fatalf("CopyFrom in the creating transaction: %d %+v %v", n, a, err)
	}
	var cur int64
	if err := tx.QueryRow(ctx, "SELECT currval('t_id_seq')").Scan(&cur); err != nil || cur != 102 {
		t.Fatalf("currval after the COPY: %d %v", cur, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := pool.QueryRow(ctx, "INSERT INTO t (v) VALUES ('after') RETURNING id").Scan(&id); err != nil || id != 103 {
		t.Fatalf("INSERT after the COPY: %d %v", id, err)
	}
	// Empty: nothing drawn.
	if n, err := pool.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"v"}, pgx.CopyFromRows(nil)); err != nil || n != 0 {
		t.Fatalf("empty COPY: %d %v", n, err)
	}
	// A temporary table's default is the database's.
	c, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	mustExec(t, c, "CREATE TEMP TABLE tt (id serial, v text)")
	if n, err := c.CopyFrom(ctx, pgx.Identifier{"tt"}, []string{"v"}, pgx.CopyFromRows([][]any{{"a"}, {"b"}})); err != nil || n != 2 {
		t.Fatalf("COPY into a temporary table: %d %v", n, err)
	}
	var max int64
	if err := c.QueryRow(ctx, "SELECT max(id) FROM tt").Scan(&max); err != nil || max != 2 {
		t.Fatalf("temporary table ids: %d %v", max, err)
	}
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 4 {
		t.Fatalf("rows: %d %v", n, err)
	}
}

// TestPerDatabaseStore: {database} in the store URL gives each database a
// store of its own, and the pool's AfterConnect and BeforeClose hooks of
// the program's still run.
func TestPerDatabaseStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var got []int64
	for range 2 {
		cfg, o, err := pgxseq.ParseConfig(withStore(t, createDatabase(t), "sqlite:"+dir+"/{database}.db"))
		if err != nil {
			t.Fatal(err)
		}
		var connected, closed atomic.Int32
		cfg.AfterConnect = func(context.Context, *pgx.Conn) error { connected.Add(1); return nil }
		cfg.BeforeClose = func(*pgx.Conn) { closed.Add(1) }
		pool, err := pgxseq.NewWithConfig(ctx, cfg, func(opts *pgxseq.Options) { *opts = o })
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, pool, "CREATE SEQUENCE s")
		got = append(got, nextval(t, pool, "s"))
		pool.Close()
		if connected.Load() == 0 || closed.Load() != connected.Load() {
			t.Errorf("hooks: %d connected, %d closed", connected.Load(), closed.Load())
		}
	}
	if !slices.Equal(got, []int64{1, 1}) {
		t.Fatalf("nextval on each database: %v, want 1 and 1 (a store each)", got)
	}
}

// TestBatchAsNative: batches of plain statements (sent in one round trip)
// answer statement by statement as the same batches sent natively: the
// same errors at the same places, in each query mode, one implicit
// transaction, the same ids when nothing fails. (After a failure the ids
// differ: pgxseq drew the values of the statements the failure skipped,
// a gap; see the README's Caveats.)
func TestBatchAsNative(t *testing.T) {
	ctx := context.Background()
	pool, dbURL := newPool(t)
	native := pool.Pool() // the same database, without seqshim
	type outcome struct {
		codes []string
		ids   []int64
		rows  int64
	}
	run := func(send func(context.Context, *pgx.Batch) pgx.BatchResults, q interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}, table string, stmts [][]any) outcome {
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(strings.ReplaceAll(s[0].(string), "TBL", table), s[1:]...)
		}
		br := send(ctx, b)
		var o outcome
		for range stmts {
			rows, err := br.Query()
			if err == nil {
				for rows.Next() {
					var id int64
					if err := rows.Scan(&id); err == nil {
						o.ids = append(o.ids, id)
					}
				}
				err = rows.Err()
			}
			o.codes = append(o.codes, pgCode(err))
		}
		br.Close()
		if err := q.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&o.rows); err != nil {
			t.Fatal(err)
		}
		return o
	}
	for m, mode := range []string{"cache_statement", "exec", "simple_protocol"} {
		shim, err := pgxseq.New(ctx, withStore(t, dbURL, "memory:"+t.Name())+"&default_query_exec_mode="+mode)
		if err != nil {
			t.Fatal(err)
		}
		defer shim.Close()
		for k, tc := range []struct {
			name  string
			ids   bool
			stmts [][]any
		}{
			{"all pass", true, [][]any{{"INSERT INTO TBL (v) VALUES ('a') RETURNING id"}, {"INSERT INTO TBL (v) VALUES ($1) RETURNING id", "b"}, {"SELECT count(*) FROM TBL"}}},
			{"a duplicate", false, [][]any{{"INSERT INTO TBL (v) VALUES ($1)", "c"}, {"INSERT INTO TBL (v) VALUES ($1)", "a"}, {"INSERT INTO TBL (v) VALUES ($1)", "d"}}},
			{"a missing sequence", false, [][]any{{"INSERT INTO TBL (v) VALUES ($1)", "e"}, {"SELECT nextval('nope')"}, {"INSERT INTO TBL (v) VALUES ($1)", "f"}}},
			{"named arguments", true, [][]any{{"INSERT INTO TBL (v) VALUES (@v) RETURNING id", pgx.NamedArgs{"v": "g"}}, {"UPDATE TBL SET v = v || '!' WHERE v = 'g'"}}},
			{"a rewriter's error", false, [][]any{{"INSERT INTO TBL (v) VALUES ($1)", "h"}, {"SELECT @x::int", pgx.StrictNamedArgs{}}}},
		} {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				st, nt := fmt.Sprintf("t_%d_%d", m, k), fmt.Sprintf("n_%d_%d", m, k)
				mustExec(t, shim, "CREATE TABLE "+st+" (id bigserial PRIMARY KEY, v text UNIQUE)")
				if _, err := native.Exec(ctx, "CREATE TABLE "+nt+" (id bigserial PRIMARY KEY, v text UNIQUE)"); err != nil {
					t.Fatal(err)
				}
				// A row 'a' in each, for the duplicate.
				mustExec(t, shim, "INSERT INTO "+st+" (v) VALUES ('z'), ('a')")
				if _, err := native.Exec(ctx, "INSERT INTO "+nt+" (v) VALUES ('z'), ('a')"); err != nil {
					t.Fatal(err)
				}
				if tc.name == "all pass" {
					shim.Exec(ctx, "DELETE FROM "+st+" WHERE v = 'a'")
					native.Exec(ctx, "DELETE FROM "+nt+" WHERE v = 'a'")
				}
				want := run(native.SendBatch, native, nt, tc.stmts)
				got := run(shim.SendBatch, shim, st, tc.stmts)
				if !slices.Equal(got.codes, want.codes) || got.rows != want.rows || tc.ids && !slices.Equal(got.ids, want.ids) {
					t.Fatalf("through pgxseq %+v, natively %+v", got, want)
				}
			})
		}
	}
}

// TestBoundValues: Exec's and Query's hot paths, which send an INSERT
// with the id it leaves to a store default bound as a parameter. The
// values land and INSERT … RETURNING returns them; the wrong number of
// arguments is pgx's or the server's own error, as natively (on a twin
// table made through pgx), nothing is drawn for it, and the session goes
// on; a text with more parameters than the session's buffers hold takes
// the general path, with the same outcome.
func TestBoundValues(t *testing.T) {
	ctx := context.Background()
	pool, db := newPool(t)
	native := connectNative(t, db, func(*pgx.ConnConfig) {})
	mustExec(t, pool, "CREATE TABLE t (id bigserial PRIMARY KEY, v text)")
	mustExec(t, native, "CREATE TABLE n (id bigserial PRIMARY KEY, v text)")
	for i := range 3 {
		mustExec(t, pool, "INSERT INTO t (v) VALUES ($1)", fmt.Sprint(i))
	}
	var id int64
	for want := int64(4); want <= 6; want++ {
		if err := pool.QueryRow(ctx, "INSERT INTO t (v) VALUES ($1) RETURNING id", "r").Scan(&id); err != nil || id != want {
			t.Fatalf("INSERT … RETURNING id: %d %v, want %d", id, err, want)
		}
	}
	rows, err := pool.Query(ctx, "INSERT INTO t (v) VALUES ($1) RETURNING id", "q")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil || !slices.Equal(got, []int64{7}) {
		t.Fatalf("Query INSERT … RETURNING id: %v %v", got, err)
	}
	query := func(q interface {
		Query(context.Context, string, ...any) (pgx.Rows, error)
	}, sql string, args []any) error {
		rows, err := q.Query(ctx, sql, args...)
		if err == nil {
			rows.Close()
			err = rows.Err()
		}
		return err
	}
	for _, c := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO %s (v) VALUES ($1)", nil},
		{"INSERT INTO %s (v) VALUES ($1)", []any{"a", "b"}},
		{"INSERT INTO %s (v) VALUES ('c')", []any{"extra"}},
		{"INSERT INTO %s (v) VALUES ($1) RETURNING id", []any{"a", "b"}},
		{"INSERT INTO %s (v) VALUES ($1)", []any{pgx.QueryExecModeExec, "a", "b"}},
		{"INSERT INTO %s (v) VALUES ($1)", []any{pgx.QueryExecModeSimpleProtocol}},
		{"INSERT INTO %s (v) VALUES ($1)", []any{pgx.QueryExecModeSimpleProtocol, "a", "b"}},
	} {
		shimSQL, nativeSQL := fmt.Sprintf(c.sql, "t"), fmt.Sprintf(c.sql, "n")
		_, got := pool.Exec(ctx, shimSQL, c.args...)
		_, want := native.Exec(ctx, nativeSQL, c.args...)
		if want == nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Exec %s with %v: %v, natively %v", c.sql, c.args, got, want)
		}
		got, want = query(pool, shimSQL, c.args), query(native, nativeSQL, c.args)
		if want == nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Query %s with %v: %v, natively %v", c.sql, c.args, got, want)
		}
	}
	if err := pool.QueryRow(ctx, "INSERT INTO t (v) VALUES ($1) RETURNING id", "after").Scan(&id); err != nil || id != 8 {
		t.Fatalf("after the errors: %d %v, want 8 (nothing drawn for them)", id, err)
	}
	var n, distinct int64
	if err := pool.QueryRow(ctx, "SELECT count(*), count(DISTINCT id) FROM t").Scan(&n, &distinct); err != nil || n != 8 || distinct != 8 {
		t.Fatalf("rows: %d, distinct ids: %d, %v; want 8", n, distinct, err)
	}

	// 16 parameters and the id: more than the session's buffers hold.
	cols, params, args := make([]string, 16), make([]string, 16), make([]any, 16)
	for i := range cols {
		cols[i], params[i], args[i] = fmt.Sprintf("c%d", i), fmt.Sprintf("$%d", i+1), fmt.Sprint(i)
	}
	mustExec(t, pool, "CREATE TABLE w (id bigserial PRIMARY KEY, "+strings.Join(cols, " text, ")+" text)")
	insert := "INSERT INTO w (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(params, ", ") + ")"
	mustExec(t, pool, insert, args...)
	if err := pool.QueryRow(ctx, insert+" RETURNING id", args...).Scan(&id); err != nil || id != 2 {
		t.Fatalf("16 parameters, RETURNING id: %d %v", id, err)
	}
	if _, err := pool.Exec(ctx, insert, args[:15]...); err == nil {
		t.Errorf("16 parameters, 15 arguments: no error")
	}
	if err := pool.QueryRow(ctx, insert+" RETURNING id", args...).Scan(&id); err != nil || id != 3 {
		t.Fatalf("16 parameters after the error: %d %v, want 3", id, err)
	}
}
