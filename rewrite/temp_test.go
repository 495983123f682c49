package rewrite

import (
	"testing"
)

// TestTempObjects: temporary sequences and tables, and names in a
// temporary schema, are the database's: their statements pass through,
// with the effects that tell a session it has temporary relations.
func TestTempObjects(t *testing.T) {
	const both = CreatesTemp | ChangesTemps
	for _, tc := range []struct {
		sql   string
		temps TempEffect
	}{
		{"CREATE TEMP SEQUENCE s", both},
		{"CREATE TEMPORARY SEQUENCE IF NOT EXISTS s START 5", both},
		{"create local temp sequence s", both},
		{"CREATE GLOBAL TEMPORARY SEQUENCE s", both},
		{"CREATE TEMP SEQUENCE rw_x FOO 3", both}, // the database's syntax error
		{"CREATE SEQUENCE pg_temp.s", both},
		{`CREATE SEQUENCE "pg_temp".s MAXVALUE 10`, both},
		{"ALTER SEQUENCE pg_temp.s OWNER TO bob", ChangesTemps},
		{"ALTER SEQUENCE IF EXISTS pg_temp_3.s RESTART", ChangesTemps},
		{"DROP SEQUENCE IF EXISTS pg_temp.s", ChangesTemps},
		{"DROP SEQUENCE a, pg_temp.b", ChangesTemps},
		{"CREATE TEMP TABLE t1 (f1 serial, f2 int DEFAULT nextval('myseq2'), f3 int DEFAULT nextval('myseq3'::text))", both},
		{"CREATE TEMPORARY TABLE t (id int GENERATED ALWAYS AS IDENTITY) ON COMMIT DROP", both},
		{"CREATE TABLE pg_temp.t (id bigserial)", both},
		{"CREATE TEMP TABLE t AS SELECT nextval('s') FROM generate_series(1, 3)", both},
		{"CREATE VIEW v AS SELECT nextval('pg_temp.s')", both},
	} {
		p := Build(Postgres, tc.sql)
		if p.Err != nil || len(p.Statements) != 1 || p.Statements[0].Kind != PassThrough || len(p.Statements[0].Calls) != 0 {
			t.Errorf("%s: err %v, statements %+v, want one PassThrough", tc.sql, p.Err, p.Statements)
			continue
		}
		if got := p.Statements[0].Temps; got != tc.temps || p.Temps != tc.temps || !p.Effects() {
			t.Errorf("%s: temps %b, plan %b, want %b", tc.sql, got, p.Temps, tc.temps)
		}
	}
}

// TestTempEffects: what a statement may do to the session's temporary
// relations.
func TestTempEffects(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want TempEffect
	}{
		{"SET search_path = pg_temp, public", CreatesTemp},
		{"SET LOCAL search_path TO public, \"pg_temp\"", CreatesTemp},
		{"SET search_path = public", 0},
		{"DISCARD TEMP", ChangesTemps},
		{"discard temporary", ChangesTemps},
		{"DISCARD ALL", ChangesTemps},
		{"DISCARD SEQUENCES", 0},
		{"DROP TABLE t", ChangesTemps},
		{"ALTER TABLE t RENAME TO u", ChangesTemps},
		{"CREATE TABLE t (a int)", ChangesTemps},
		{"CREATE OR REPLACE TEMP VIEW v AS SELECT 1", CreatesTemp | ChangesTemps},
		{"CREATE TABLE temp (a int)", ChangesTemps}, // a table named temp
		{"INSERT INTO t (temp) VALUES (1)", 0},
		{"INSERT INTO pg_temp.t VALUES (1)", 0},
		{"UPDATE t SET a = 1 WHERE temp > 3", 0},
	} {
		var got TempEffect
		for _, st := range build(Postgres, tc.sql).Statements {
			got |= st.Temps
		}
		if got != tc.want {
			t.Errorf("%s: temps %b, want %b", tc.sql, got, tc.want)
		}
	}
	if p := Build(Postgres, "SELECT * FROM pg_temp.t"); p != passThroughPlan {
		t.Errorf("a read of a temporary table is planned: %+v", p)
	}
}

// TestTempCalls: a call of a sequence in a temporary schema is marked, and
// never refused for being evaluated once per row: the database evaluates
// it.
func TestTempCalls(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		kind  Kind
		temps []bool
	}{
		{"SELECT nextval('pg_temp.s')", Local, []bool{true}},
		{`SELECT nextval('"pg_temp".s'), currval('pg_temp_3.s')`, Local, []bool{true, true}},
		{`SELECT nextval('"PG_TEMP".s')`, Local, []bool{false}},
		{"SELECT nextval('s'), setval('pg_temp.t', 5)", Local, []bool{false, true}},
		{"SELECT nextval('pg_temp.s') FROM generate_series(1, 3)", Local, []bool{true}},
		{"INSERT INTO t SELECT nextval('pg_temp.s'), x FROM u", Rewrite, []bool{true}},
		{"UPDATE t SET a = nextval('pg_temp.s')", Rewrite, []bool{true}},
		{"SELECT nextval('pg_temp.s') FROM t", Rewrite, []bool{true}},
		{"SELECT nextval('pg_temp.s'), nextval('s') FROM t", Reject, nil},
		{"SELECT pg_temp.s.nextval", Local, []bool{true}},
	} {
		p := Build(Postgres, tc.sql)
		st := p.Statements[0]
		if st.Kind != tc.kind || len(st.Calls) != len(tc.temps) {
			t.Errorf("%s: %v with %d calls (%v), want %v with %d", tc.sql, st.Kind, len(st.Calls), p.Err, tc.kind, len(tc.temps))
			continue
		}
		for i, c := range st.Calls {
			if c.Temp != tc.temps[i] {
				t.Errorf("%s: call %d Temp %v", tc.sql, i, c.Temp)
			}
		}
	}
	if p := Build(MySQL, "SELECT pg_temp.s.NEXTVAL"); p.Statements[0].Calls[0].Temp {
		t.Error("a MySQL schema named pg_temp is temporary")
	}
}

// TestAppendSQLNative: calls and sequence DDL left to the database are
// written as they are; the other calls take the values in order, bound
// parameters numbered without gaps.
func TestAppendSQLNative(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		natives Natives
		values  []int64
		want    string
		bound   bool
	}{
		{"SELECT nextval('tmp'), nextval('s')", Natives{Calls: []bool{true, false}}, []int64{42},
			"SELECT nextval('tmp'), (42::int8) AS nextval", false},
		{"SELECT nextval('tmp'), nextval('s')", Natives{Calls: []bool{true, true}}, nil,
			"SELECT nextval('tmp'), nextval('s')", false},
		{"SELECT nextval($1), nextval('s'), $2::int", Natives{Calls: []bool{true, false}}, []int64{7},
			"SELECT nextval($1), ($3::int8) AS nextval, $2::int", true},
		{"SELECT nextval('s') AS a, lastval() AS b", Natives{Calls: []bool{false, true}}, []int64{7},
			"SELECT (7::int8) AS a, lastval() AS b", false},
		{"INSERT INTO t VALUES (nextval('tmp'), nextval('s'), $1)", Natives{Calls: []bool{true, false}}, []int64{9},
			"INSERT INTO t VALUES (nextval('tmp'), ($2::int8), $1)", true},
		{"SELECT nextval('s'); SELECT nextval('tmp'); SELECT 1", Natives{Calls: []bool{false, true}}, nil,
			" SELECT nextval('tmp'); SELECT 1", false},
		{"SELECT nextval('a'); DROP SEQUENCE tmp; SELECT 1", Natives{Calls: []bool{false}, Statements: 1 << 1}, nil,
			" DROP SEQUENCE tmp; SELECT 1", false},
		{"SELECT 1; SELECT nextval('tmp'), nextval('s'); INSERT INTO t VALUES (nextval('s'))", Natives{Calls: []bool{true, false, false}}, []int64{1, 2},
			"SELECT 1; SELECT nextval('tmp'), (1::int8) AS nextval; INSERT INTO t VALUES ((2::int8))", false},
		{"SELECT nextval('s'); UPDATE t SET a = nextval('tmp')", Natives{Calls: []bool{false}, Statements: 1 << 1}, nil,
			" UPDATE t SET a = nextval('tmp')", false},
	} {
		p := Build(Postgres, tc.sql)
		got, bound := p.AppendSQLNative(nil, tc.values, false, 0, &tc.natives)
		if string(got) != tc.want || bound != tc.bound {
			t.Errorf("%s with %+v:\n got %q (bound %v)\nwant %q (bound %v)", tc.sql, tc.natives, got, bound, tc.want, tc.bound)
		}
	}
}

// TestNativeOnly: a statement refused for evaluating its calls once per
// row or later keeps them when each may name a session's temporary
// sequence, for a session to send it as written; not when one cannot.
func TestNativeOnly(t *testing.T) {
	for _, tc := range []struct {
		d      Dialect
		sql    string
		native int // len(NativeOnly); -1: nil
	}{
		{Postgres, "SELECT x, nextval('s') FROM generate_series(1, 3) AS x, LATERAL (SELECT 1) AS y", 1},
		{Postgres, "INSERT INTO t SELECT nextval('s'), currval('u') FROM v", 2},
		{Postgres, "UPDATE t SET a = nextval($1)", 1},
		{Postgres, "UPDATE t SET a = nextval('pg_temp.s'), b = nextval('s')", 2},
		{Postgres, "CREATE TEMP VIEW v AS SELECT nextval('s')", 1},
		{Postgres, "UPDATE t SET a = nextval('public.s')", -1},         // not a temporary sequence
		{Postgres, "UPDATE t SET a = nextval('s'), b = lastval()", -1}, // lastval is not named
		{Postgres, "UPDATE t SET a = nextval(pg_get_serial_sequence('t', 'id'))", -1},
		{Postgres, "EXPLAIN ANALYZE SELECT nextval('s')", -1}, // refused for another reason
		{MySQL, "UPDATE t SET a = NEXTVAL(s)", -1},
	} {
		p := Build(tc.d, tc.sql)
		st := p.Statements[0]
		if st.Kind != Reject {
			t.Errorf("%s: %v, want Reject", tc.sql, st.Kind)
			continue
		}
		if n := len(st.NativeOnly); tc.native < 0 && st.NativeOnly != nil || tc.native >= 0 && n != tc.native {
			t.Errorf("%s: NativeOnly %+v, want %d calls", tc.sql, st.NativeOnly, tc.native)
		}
		if p.NativeOnly() != (tc.native >= 0) {
			t.Errorf("%s: Plan.NativeOnly %v", tc.sql, p.NativeOnly())
		}
	}
	if p := Build(Postgres, "UPDATE t SET a = nextval('s'); SELECT nextval('a', 'b', 'c') FROM x; DROP SEQUENCE a.b.c"); p.NativeOnly() {
		t.Error("a plan with a statement refused otherwise is NativeOnly")
	}
	if p := Build(Postgres, "SELECT 1"); p.NativeOnly() {
		t.Error("a plan without a refusal is NativeOnly")
	}
}

// TestInjectNative: a temporary table's defaults (Native) are the
// database's: nothing is written out or refused, and the lookup learns
// whether the statement draws from them.
func TestInjectNative(t *testing.T) {
	for _, tc := range []struct {
		sql            string
		drawn, mayDraw bool
	}{
		{"INSERT INTO t (v) VALUES ('x')", true, false},
		{"INSERT INTO t DEFAULT VALUES", true, false},
		{"INSERT INTO t (id, v) VALUES (1, 'x')", false, false},
		{"INSERT INTO t (id, v) VALUES (1, 'x'), (DEFAULT, 'y')", true, false},
		{"INSERT INTO t (id, v) OVERRIDING USER VALUE VALUES (1, 'x')", true, false},
		{"INSERT INTO t VALUES (1, 'x')", false, false},
		{"INSERT INTO t VALUES ('x')", true, false}, // v only: id is left to its default
		{"INSERT INTO t (v) SELECT v FROM u", true, false},
		{"INSERT INTO t (id, v) SELECT id, v FROM u", false, false},
		{"INSERT INTO t SELECT * FROM u", false, true},
		{"UPDATE t SET id = DEFAULT", true, false},
		{"UPDATE t SET v = DEFAULT", false, false},
		{"COPY t (v) FROM STDIN", true, false},
	} {
		td := &TableDefaults{Table: "pg_temp_3.t", Native: true, Defaults: []ColumnSequence{{Column: "id"}}, Columns: []string{"v", "id"}}
		got, changed, err := InjectDefaults(Postgres, tc.sql, func(string, bool, bool) (*TableDefaults, error) { return td, nil })
		if err != nil || changed || got != tc.sql {
			t.Errorf("%s: %q, changed %v, err %v; want it unchanged", tc.sql, got, changed, err)
		}
		if td.Drawn != tc.drawn || td.MayDraw != tc.mayDraw {
			t.Errorf("%s: Drawn %v, MayDraw %v; want %v, %v", tc.sql, td.Drawn, td.MayDraw, tc.drawn, tc.mayDraw)
		}
	}
}
