package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/sequence"
)

// sent runs query and returns the text sent to the database ("" for one
// answered here), failing the test on an error.
func sent(t *testing.T, s *Session[AnyArgs], query string, args ...any) string {
	t.Helper()
	_, sql, err := run(t, s, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return sql
}

// isErr reports whether err is want as the application sees it: a
// PostgreSQL error with its SQLSTATE and message.
func isErr(err error, want *sequence.Error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == want.Code && pe.Message == want.Message
}

// wantCode checks that err is a PostgreSQL error with SQLSTATE code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code {
		t.Errorf("%s: %v, want SQLSTATE %s", what, err, code)
	}
}

// TestTempNoCost: a session that never created a temporary relation never
// reads the temporary schema, whatever DDL, transaction end or DISCARD it
// runs.
func TestTempNoCost(t *testing.T) {
	db := &fakeDB{}
	s := newSession(t, db)
	for _, q := range []string{
		"SELECT nextval('s')", "INSERT INTO t VALUES (1)", "CREATE TABLE x (a int)", "ALTER TABLE x ADD b int",
		"DROP TABLE x", "BEGIN", "COMMIT", "DISCARD TEMP", "DISCARD ALL", "SELECT nextval($1)", "SELECT lastval()",
	} {
		if _, _, err := run(t, s, q, "s"); err != nil && !strings.Contains(q, "lastval") {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if db.tempReads != 0 {
		t.Errorf("%d reads of the temporary schema, want 0", db.tempReads)
	}
}

// TestTempSequence: a temporary sequence hides the store's of the same
// name: its calls, lastval after them and its DDL go to the database as
// written, other calls of the same statement are drawn here; dropped, the
// store's is back.
func TestTempSequence(t *testing.T) {
	db := &fakeDB{}
	s := newSession(t, db)
	if sql := sent(t, s, "SELECT nextval('s')"); sql != "" {
		t.Fatalf("store nextval sent: %q", sql)
	}
	if sql := sent(t, s, "CREATE TEMP SEQUENCE s START 100"); sql != "CREATE TEMP SEQUENCE s START 100" {
		t.Fatalf("CREATE TEMP SEQUENCE sent as %q", sql)
	}
	db.temps = [][]string{{"s", "S", ""}}
	for _, tc := range []struct{ query, want string }{
		{"SELECT nextval('s')", "SELECT nextval('s')"},
		{"SELECT lastval()", "SELECT lastval()"},
		{"SELECT nextval('s'), nextval('public.s')", "SELECT nextval('s'), (2::int8) AS nextval"},
		{"SELECT lastval()", ""}, // public.s's, drawn last
		{"SELECT currval('s'), currval('public.s')", "SELECT currval('s'), (2::int8) AS currval"},
		{"SELECT nextval($1)", "SELECT nextval($1)"},
		{"SELECT nextval('public.s') AS a, lastval() AS b", ""},
		{"SELECT setval('s', 5), nextval('s'), lastval()", "SELECT setval('s', 5), nextval('s'), lastval()"},
		{"SELECT nextval('s') FROM generate_series(1, 3)", "SELECT nextval('s') FROM generate_series(1, 3)"},
		{"ALTER SEQUENCE s RESTART", "ALTER SEQUENCE s RESTART"},
		{"SELECT nextval('pg_temp.s')", "SELECT nextval('pg_temp.s')"},
		{"SELECT x, nextval('s') FROM generate_series(1, 3) AS x, LATERAL (SELECT 1) AS y", "SELECT x, nextval('s') FROM generate_series(1, 3) AS x, LATERAL (SELECT 1) AS y"},
		{"UPDATE t SET a = nextval($1)", "UPDATE t SET a = nextval($1)"},
		{"CREATE TEMP VIEW v AS SELECT nextval('s')", "CREATE TEMP VIEW v AS SELECT nextval('s')"},
		{"SELECT 1; INSERT INTO t SELECT nextval('s') FROM u", "SELECT 1; INSERT INTO t SELECT nextval('s') FROM u"},
	} {
		if sql := sent(t, s, tc.query, "s"); sql != tc.want {
			t.Errorf("%s: sent %q, want %q", tc.query, sql, tc.want)
		}
	}
	if db.tempReads != 3 { // after CREATE, ALTER and CREATE TEMP VIEW, when next needed
		t.Errorf("%d reads of the temporary schema, want 3", db.tempReads)
	}
	if _, _, err := run(t, s, "SELECT nextval('s'), nextval('public.s') FROM generate_series(1, 3)"); !isErr(err, errTempPerRow) {
		t.Errorf("store and temporary calls per row of generate_series: %v", err)
	}
	for _, q := range []string{
		"UPDATE t SET a = nextval('s'), b = nextval('u')", // u is no temporary sequence
		"UPDATE t SET a = nextval($1)",                    // a bind argument naming the store's
	} {
		_, _, err := run(t, s, q, "public.s")
		wantCode(t, q, err, "0A000")
	}
	_, _, err := run(t, s, "DROP SEQUENCE s, public.s")
	wantCode(t, "DROP of a temporary and a store sequence", err, "0A000")
	if sql := sent(t, s, "DROP SEQUENCE s"); sql != "DROP SEQUENCE s" {
		t.Fatalf("DROP SEQUENCE of the temporary s sent as %q", sql)
	}
	db.temps = [][]string{}
	if sql := sent(t, s, "SELECT lastval()"); sql != "SELECT lastval()" {
		t.Errorf("lastval after a temporary sequence's nextval, dropped: %q, want the database's error", sql)
	}
	if sql := sent(t, s, "SELECT nextval('s')"); sql != "" {
		t.Errorf("nextval('s') after DROP of the temporary s: sent %q, want the store's", sql)
	}
	if _, err := s.eng.store.Describe(context.Background(), "s"); err != nil {
		t.Errorf("the store's s: %v", err)
	}
	if s.temps.maybe {
		t.Error("a session whose temporary schema is empty still looks at it")
	}
}

// TestTempOrder: a name resolved before the string runs, after a statement
// of the same string that may create a temporary relation, is refused.
func TestTempOrder(t *testing.T) {
	db := &fakeDB{}
	s := newSession(t, db)
	if _, _, err := run(t, s, "DROP TABLE x; SELECT nextval('s')"); err != nil {
		t.Errorf("DROP before a resolved name in a session without temporary relations: %v", err)
	}
	for _, q := range []string{
		"CREATE TEMP SEQUENCE s; SELECT nextval('s')",
		"CREATE TEMP TABLE x (a int); SELECT 1; DROP SEQUENCE s",
	} {
		if _, _, err := run(t, s, q); !isErr(err, errTempOrder) {
			t.Errorf("%s: %v, want errTempOrder", q, err)
		}
	}
	for _, q := range []string{
		"SELECT nextval('s'); CREATE TEMP SEQUENCE s", // resolved before the CREATE, as PostgreSQL does
		"CREATE TEMP SEQUENCE u; SELECT nextval('public.s')",
	} {
		if _, _, err := run(t, s, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	db.temps = [][]string{{"u", "S", ""}}
	if _, _, err := run(t, s, "DROP TABLE x; SELECT nextval('s')"); !isErr(err, errTempOrder) {
		t.Errorf("DROP before a resolved name in a session with temporary relations: %v", err)
	}
}

// TestTempTransaction: a temporary relation created in a transaction block
// is read again at its end (a rollback undoes it, ON COMMIT DROP drops it);
// a transaction that changed none costs no read.
func TestTempTransaction(t *testing.T) {
	db := &fakeDB{}
	s := newSession(t, db)
	db.status = 'T'
	sent(t, s, "CREATE TEMP SEQUENCE s")
	db.temps = [][]string{{"s", "S", ""}}
	if sql := sent(t, s, "SELECT nextval('s')"); sql == "" {
		t.Fatal("nextval of the temporary s answered here")
	}
	db.status = 'I'
	if err := s.Rollback(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	db.temps = [][]string{}
	if sql := sent(t, s, "SELECT nextval('s')"); sql != "" {
		t.Errorf("nextval('s') after the rollback of the temporary s: sent %q", sql)
	}
	db.temps = [][]string{{"v", "S", ""}}
	sent(t, s, "CREATE TEMP SEQUENCE v")
	sent(t, s, "SELECT nextval('s')")
	reads := db.tempReads
	db.status = 'T'
	sent(t, s, "SELECT nextval('s')")
	db.status = 'I'
	if err := s.Commit(context.Background(), func(context.Context) error { return nil }, nil); err != nil {
		t.Fatal(err)
	}
	sent(t, s, "SELECT nextval('s')")
	if db.tempReads != reads {
		t.Errorf("%d reads of the temporary schema for a transaction that changed none", db.tempReads-reads)
	}
}

// TestTempTable: an INSERT into a temporary table that hides a store table
// gets no store defaults, and lastval after it is the database's; a
// read-only transaction refuses a store nextval in it with PostgreSQL's
// message for nextval, not for the INSERT.
func TestTempTable(t *testing.T) {
	db := &fakeDB{}
	s := newSession(t, db)
	ctx := context.Background()
	defs := []sequence.ColumnDefault{{Table: "t", Column: "id"}}
	spec, pos, _ := sequence.Clauses{Defaults: &defs}.Create()
	if err := s.eng.store.Create(ctx, "t_id_seq", spec, pos); err != nil {
		t.Fatal(err)
	}
	s.eng.forgetDefaults()
	const insert = "INSERT INTO t (v) VALUES ('x')"
	if sql := sent(t, s, insert); !strings.Contains(sql, "::int8") {
		t.Fatalf("INSERT into the store table: %q", sql)
	}
	sent(t, s, "CREATE TEMP TABLE t (id serial, v text)")
	db.temps = [][]string{{"t", "r", "id"}, {"t_id_seq", "S", ""}}
	if sql := sent(t, s, insert); sql != insert {
		t.Errorf("INSERT into the temporary t: sent %q", sql)
	}
	if sql := sent(t, s, "SELECT lastval()"); sql != "SELECT lastval()" {
		t.Errorf("lastval after the temporary table's default: %q", sql)
	}
	if sql := sent(t, s, "INSERT INTO t (id, v) VALUES (nextval('s'), 'y')"); !strings.Contains(sql, "::int8") {
		t.Errorf("INSERT into the temporary t with a store nextval: %q", sql)
	}
	if sql := sent(t, s, "SELECT lastval()"); sql != "" {
		t.Errorf("lastval after the store's nextval: sent %q", sql)
	}
	_, _, err := run(t, s, "INSERT INTO t (v) VALUES (lastval())")
	if !isErr(err, errUnclearLastval) {
		t.Errorf("lastval in the INSERT that draws the temporary default, after a store nextval: %v", err)
	}
	db.params = map[string]string{"default_transaction_read_only": "on"}
	_, _, err = run(t, s, "INSERT INTO t (id, v) VALUES (nextval('s'), 'y')")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Message != "cannot execute nextval() in a read-only transaction" {
		t.Errorf("store nextval into a temporary table, read-only: %v", err)
	}
	db.params = nil
	sent(t, s, "DISCARD TEMP")
	db.temps = [][]string{}
	if sql := sent(t, s, insert); !strings.Contains(sql, "::int8") {
		t.Errorf("INSERT into the store table after DISCARD TEMP: %q", sql)
	}
}
