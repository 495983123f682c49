package driver_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

// uniq returns a name unique to this test run, usable as an SQL identifier.
func uniq(tb testing.TB, prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// nativeDB opens the test PostgreSQL through pgx directly.
func nativeDB(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("pgx", testenv.PG(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// storeKinds are the stores the integration tests run with.
var storeKinds = []struct {
	name string
	open func(tb testing.TB) sequence.Store
}{
	{"memory", func(tb testing.TB) sequence.Store { return memstore.New() }},
	{"sqlite", func(tb testing.TB) sequence.Store {
		st, err := sqlstore.Open(context.Background(), "sqlite:"+filepath.Join(tb.TempDir(), "seq.db"))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { st.Close() })
		return st
	}},
	{"dynamodb", func(tb testing.TB) sequence.Store { return dynamoStore(tb) }},
}

// dynamoStore returns a store on a fresh dynalite table.
func dynamoStore(tb testing.TB) sequence.Store {
	tb.Helper()
	return testenv.NewDynamoTable(tb).Store()
}

// seqshimDB opens the test PostgreSQL through seqshim's Go API with store st.
func seqshimDB(tb testing.TB, st sequence.Store, optFns ...func(*seqdriver.Options)) *sql.DB {
	tb.Helper()
	cfg, err := pgx.ParseConfig(testenv.PG(tb))
	if err != nil {
		tb.Fatal(err)
	}
	c, err := seqdriver.NewConnector(stdlib.GetConnector(*cfg),
		append([]func(*seqdriver.Options){func(o *seqdriver.Options) { o.Store = st }}, optFns...)...)
	if err != nil {
		tb.Fatal(err)
	}
	db := sql.OpenDB(c)
	tb.Cleanup(func() { db.Close() })
	return db
}

func mustExec(tb testing.TB, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) {
	tb.Helper()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
}

func queryInt64(tb testing.TB, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, query string, args ...any) int64 {
	tb.Helper()
	var v int64
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&v); err != nil {
		tb.Fatalf("%s: %v", query, err)
	}
	return v
}

// backends runs a check against native PostgreSQL and through seqshim, with
// a sequence named seq created in each.
type backend struct {
	name string
	db   *sql.DB
}

// Both share one database. seqshim's sequence has its fenced twin there,
// in public; the native one lives in a schema of its own, first on the
// native connections' search_path, so that both are written unqualified.
func backends(t *testing.T, seq, options string) []backend {
	shim := seqshimDB(t, memstore.New())
	mustExec(t, shim, "CREATE SEQUENCE "+seq+" "+options)
	schema := seq + "_native"
	admin := nativeDB(t)
	mustExec(t, admin, "CREATE SCHEMA "+schema)
	t.Cleanup(func() { admin.Exec("DROP SCHEMA " + schema + " CASCADE; DROP SEQUENCE IF EXISTS public." + seq) })
	native, err := sql.Open("pgx", testenv.PG(t)+"&options=-c%20search_path%3D"+schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { native.Close() })
	mustExec(t, native, "CREATE SEQUENCE "+seq+" "+options)
	return []backend{{"native", native}, {"seqshim", shim}}
}

// TestPGPerSessionCurrval: two pinned connections each see their own
// currval, as in PostgreSQL.
func TestPGPerSessionCurrval(t *testing.T) {
	seq := uniq(t, "s")
	results := map[string][]int64{}
	for _, be := range backends(t, seq, "") {
		t.Run(be.name, func(t *testing.T) {
			ctx := context.Background()
			a, err := be.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := be.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			va := queryInt64(t, a, "SELECT nextval('"+seq+"')")
			vb := queryInt64(t, b, "SELECT nextval('"+seq+"')")
			ca := queryInt64(t, a, "SELECT currval('"+seq+"')")
			cb := queryInt64(t, b, "SELECT lastval()")
			if ca != va || cb != vb || va == vb {
				t.Errorf("a: nextval %d currval %d; b: nextval %d lastval %d", va, ca, vb, cb)
			}
			mustExec(t, a, "DISCARD SEQUENCES")
			var pe *pgconn.PgError
			if err := a.QueryRowContext(ctx, "SELECT currval('"+seq+"')").Scan(new(int64)); !errors.As(err, &pe) || pe.Code != "55000" {
				t.Errorf("currval after DISCARD SEQUENCES: %v", err)
			}
			mustExec(t, b, "DISCARD ALL")
			// DISCARD ALL also deallocates pgx's cached statements: use the
			// simple protocol, as pgx users must after it.
			if err := b.QueryRowContext(ctx, "SELECT lastval()", pgx.QueryExecModeSimpleProtocol).Scan(new(int64)); !errors.As(err, &pe) || pe.Code != "55000" {
				t.Errorf("lastval after DISCARD ALL: %v", err)
			}
			// A prepared DISCARD behind a comment, as poolers send it.
			queryInt64(t, a, "SELECT nextval('"+seq+"')")
			st, err := a.PrepareContext(ctx, "/* reset */ DISCARD SEQUENCES")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.ExecContext(ctx); err != nil {
				t.Fatal(err)
			}
			st.Close()
			if err := a.QueryRowContext(ctx, "SELECT currval('"+seq+"')").Scan(new(int64)); !errors.As(err, &pe) || pe.Code != "55000" {
				t.Errorf("currval after a prepared DISCARD SEQUENCES: %v", err)
			}
			results[be.name] = []int64{va, vb, ca, cb}
		})
	}
	if fmt.Sprint(results["native"]) != fmt.Sprint(results["seqshim"]) {
		t.Errorf("native %v, seqshim %v", results["native"], results["seqshim"])
	}
}

// TestPGErrorsMatchNative compares SQLSTATE and message with PostgreSQL's.
func TestPGErrorsMatchNative(t *testing.T) {
	seq := uniq(t, "e")
	tests := []struct {
		name  string
		steps []string // run in order; the last one must fail
	}{
		{"missing sequence", []string{"SELECT nextval('" + seq + "_missing')"}},
		{"currval undefined", []string{"SELECT currval('" + seq + "')"}},
		{"maxvalue", []string{"SELECT setval('" + seq + "', 3)", "SELECT nextval('" + seq + "')"}},
		{"setval out of bounds", []string{"SELECT setval('" + seq + "', 4)"}},
		{"create existing", []string{"CREATE SEQUENCE " + seq}},
		{"bad option", []string{"CREATE SEQUENCE " + seq + "_bad INCREMENT 0"}},
	}
	bes := backends(t, seq, "MAXVALUE 3")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, be := range bes {
				ctx := context.Background()
				c, err := be.db.Conn(ctx) // a fresh session each: currval undefined
				if err != nil {
					t.Fatal(err)
				}
				for i, q := range tt.steps {
					_, err = c.ExecContext(ctx, q)
					if i < len(tt.steps)-1 && err != nil {
						t.Fatalf("%s: %s: %v", be.name, q, err)
					}
				}
				c.Raw(func(any) error { return driver.ErrBadConn }) // discard the session
				c.Close()
				var pe *pgconn.PgError
				if !errors.As(err, &pe) {
					t.Fatalf("%s: %T %v, want *pgconn.PgError", be.name, err, err)
				}
				got = append(got, pe.Code+" "+pe.Message)
			}
			if got[0] != got[1] {
				t.Errorf("native:  %s\nseqshim: %s", got[0], got[1])
			}
		})
	}
}

// TestPGColumnTypes compares a locally answered row with PostgreSQL's:
// sequence functions' and regclass values'.
func TestPGColumnTypes(t *testing.T) {
	seq := uniq(t, "c")
	queries := []string{
		"SELECT nextval('" + seq + "')",
		"SELECT nextval('" + seq + "') AS id, currval('" + seq + "')",
		"SELECT '" + seq + "'::regclass, '" + seq + "'::regclass::text AS t, '" + seq + "'::regclass::varchar, '" + seq + "'::regclass::name",
	}
	var got []string
	for _, be := range backends(t, seq, "") {
		for _, q := range queries {
			rows, err := be.db.Query(q)
			if err != nil {
				t.Fatal(err)
			}
			cts, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			var desc []string
			for _, ct := range cts {
				_, nullOK := ct.Nullable()
				length, lengthOK := ct.Length()
				desc = append(desc, fmt.Sprintf("%s:%s:%v:%v:%d:%v", ct.Name(), ct.DatabaseTypeName(), ct.ScanType(), nullOK, length, lengthOK))
			}
			var row []any
			for rows.Next() {
				row = make([]any, len(cts))
				ptrs := make([]any, len(row))
				for i := range row {
					ptrs[i] = &row[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
			}
			rows.Close()
			if strings.Contains(q, "regclass") { // the values of nextval differ
				for _, v := range row {
					desc = append(desc, fmt.Sprintf("%T %v", v, v))
				}
			}
			got = append(got, strings.Join(desc, ","))
		}
	}
	if n := len(queries); len(got) != 2*n || !slices.Equal(got[:n], got[n:]) {
		t.Errorf("column types native %q, seqshim %q", got[:n], got[n:])
	}
}

// TestPGRaw reaches *pgx.Conn through sql.Conn.Raw and Unwrap.
func TestPGRaw(t *testing.T) {
	db := seqshimDB(t, memstore.New())
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		inner := dc.(interface{ Unwrap() driver.Conn }).Unwrap()
		pc := inner.(*stdlib.Conn).Conn()
		var one int
		return pc.QueryRow(context.Background(), "SELECT 1").Scan(&one)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPGDDLBoth creates the sequence in the store and the database.
func TestPGDDLBoth(t *testing.T) {
	native := nativeDB(t)
	st := memstore.New()
	db := seqshimDB(t, st, func(o *seqdriver.Options) { o.DDL = seqdriver.DDLBoth })
	seq := uniq(t, "b")
	mustExec(t, db, "CREATE SEQUENCE "+seq+" START 5")
	t.Cleanup(func() { native.Exec("DROP SEQUENCE IF EXISTS " + seq) })
	if _, err := st.Describe(context.Background(), seq); err != nil {
		t.Errorf("store: %v", err)
	}
	var n int
	native.QueryRow("SELECT count(*) FROM pg_sequences WHERE sequencename = $1", seq).Scan(&n)
	if n != 1 {
		t.Error("sequence not created in the database")
	}
	if v := queryInt64(t, db, "SELECT nextval('"+seq+"')"); v != 5 {
		t.Errorf("first value %d, want 5", v)
	}
	mustExec(t, db, "DROP SEQUENCE "+seq)
	native.QueryRow("SELECT count(*) FROM pg_sequences WHERE sequencename = $1", seq).Scan(&n)
	if n != 0 {
		t.Error("sequence not dropped in the database")
	}
}

// dynamoURL returns the store URL of a fresh dynalite table; the SDK's
// default chain gets dummy credentials, which dynalite accepts.
func dynamoURL(t *testing.T) string {
	t.Helper()
	d := testenv.NewDynamoTable(t)
	testenv.DynamoDBEnv(t)
	return d.URL("")
}

// TestPGOpenDSN opens seqshim by name with the store in the DSN, for each
// kind of store URL.
func TestPGOpenDSN(t *testing.T) {
	pg := testenv.PG(t)
	native := nativeDB(t)
	tests := []struct {
		name  string
		store func(t *testing.T) string
	}{
		{"memory", func(t *testing.T) string { return "memory:" + uniq(t, "dsn") }},
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "seq.db") }},
		{"postgres", func(t *testing.T) string {
			table := uniq(t, "seqshim_store")
			t.Cleanup(func() { native.Exec("DROP TABLE IF EXISTS " + table) })
			sep := "?"
			if strings.Contains(pg, "?") {
				sep = "&"
			}
			return pg + sep + "table=" + table
		}},
		{"dynamodb", dynamoURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sep := "?"
			if strings.Contains(pg, "?") {
				sep = "&"
			}
			storeURL := tt.store(t)
			db, err := sql.Open("seqshim", pg+sep+"seqshim.store="+url.QueryEscape(storeURL))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			seq, tbl := uniq(t, "s"), uniq(t, "t")
			mustExec(t, db, "CREATE SEQUENCE "+seq+" START 42")
			mustExec(t, native, "CREATE TABLE "+tbl+" (id bigint PRIMARY KEY, v text)")
			t.Cleanup(func() { native.Exec("DROP TABLE " + tbl) })
			if v := queryInt64(t, db, "SELECT nextval('"+seq+"')"); v != 42 {
				t.Errorf("first value %d, want 42", v)
			}
			if v := queryInt64(t, db, "INSERT INTO "+tbl+" VALUES (nextval('"+seq+"'), $1) RETURNING id", "x"); v != 43 {
				t.Errorf("inserted id %d, want 43", v)
			}
		})
	}
}

// TestPGEnvStore: without seqshim.store, SEQSHIM_STORE is the store.
func TestPGEnvStore(t *testing.T) {
	t.Setenv("SEQSHIM_STORE", "memory:"+uniq(t, "env"))
	db, err := sql.Open("seqshim", testenv.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seq := uniq(t, "s")
	mustExec(t, db, "CREATE SEQUENCE "+seq)
	if v := queryInt64(t, db, "SELECT nextval('"+seq+"')"); v != 1 {
		t.Errorf("first value %d", v)
	}
}

// TestPGStoreSequenceAsRelation: a statement that reads a store sequence as
// a relation (SELECT … FROM s) gets a 0A000 that says what to do, not the
// database's misleading 42P01; a relation that exists nowhere keeps 42P01.
func TestPGStoreSequenceAsRelation(t *testing.T) {
	st := memstore.New()
	db := seqshimDB(t, st)
	// A store sequence made around seqshim (seqctl create) has no twin in
	// the database.
	seq := uniq(t, "s")
	spec, pos, err := sequence.Clauses{}.Create()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(context.Background(), seq, spec, pos); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT last_value, is_called FROM " + seq,
		"SELECT last_value FROM public." + seq,
	} {
		var v int64
		err := db.QueryRow(q).Scan(&v)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, "seqshim's store") {
			t.Errorf("%s: %v, want 0A000 naming the store", q, err)
		}
	}
	var pe *pgconn.PgError
	if _, err := db.Exec("DELETE FROM " + seq); !errors.As(err, &pe) || pe.Code != "0A000" {
		t.Errorf("DELETE FROM a store sequence: %v, want 0A000", err)
	}
	// One made through seqshim has its fenced twin, which the database
	// reads: at its end, called (README: the twin as a relation).
	twin := uniq(t, "twin")
	mustExec(t, db, "CREATE SEQUENCE "+twin+" MAXVALUE 1000")
	t.Cleanup(func() { nativeDB(t).Exec("DROP SEQUENCE IF EXISTS " + twin) })
	queryInt64(t, db, "SELECT nextval('"+twin+"')")
	var last int64
	var called bool
	if err := db.QueryRow("SELECT last_value, is_called FROM "+twin).Scan(&last, &called); err != nil || last != 1000 || !called {
		t.Errorf("the twin as a relation: %d %v, %v; want 1000 true", last, called, err)
	}
	if _, err := db.Exec("DELETE FROM " + twin); !errors.As(err, &pe) || pe.Code != "42809" {
		t.Errorf("DELETE FROM a twin: %v, want PostgreSQL's 42809", err)
	}
	_, err = db.Exec("SELECT * FROM " + uniq(t, "nowhere"))
	if !errors.As(err, &pe) || pe.Code != "42P01" {
		t.Errorf("a relation that exists nowhere: %v, want 42P01", err)
	}
}
