package rewrite

import (
	"fmt"
	"reflect"
	"testing"
)

func TestLocal(t *testing.T) {
	for _, tc := range []struct {
		d      Dialect
		sql    string
		cols   []string
		calls  string // Func name arg value called, per call
		series string
	}{
		{Postgres, "SELECT nextval('s')", []string{"nextval"}, "nextval s -1 c0 c1", ""},
		{Postgres, "select currval('s')", []string{"currval"}, "currval s -1 c0 c1", ""},
		{Postgres, "SELECT lastval()", []string{"lastval"}, "lastval  -1 c0 c1", ""},
		{Postgres, "SELECT setval('s', 5)", []string{"setval"}, "setval s -1 c5 c1", ""},
		{Postgres, "SELECT setval('s', -5, false)", []string{"setval"}, "setval s -1 c-5 c0", ""},
		{Postgres, "SELECT setval('s', '42', 'f')", []string{"setval"}, "setval s -1 c42 c0", ""},
		{Postgres, "SELECT setval('s', 9223372036854775807, TRUE)", []string{"setval"}, "setval s -1 c9223372036854775807 c1", ""},
		{Postgres, "SELECT setval($1, $2, $3)", []string{"setval"}, "setval  0 a1 a2", ""},
		{Postgres, "SELECT setval('s', $1::bigint, $2::bool)", []string{"setval"}, "setval s -1 a0 a1", ""},
		{Postgres, "SELECT nextval($1)", []string{"nextval"}, "nextval  0 c0 c1", ""},
		{Postgres, "SELECT nextval($7::regclass)", []string{"nextval"}, "nextval  6 c0 c1", ""},
		{Postgres, "SELECT nextval('a') AS x, nextval('b') y, currval('a') \"Z\"", []string{"x", "y", "Z"},
			"nextval a -1 c0 c1; nextval b -1 c0 c1; currval a -1 c0 c1", ""},
		{Postgres, "SELECT nextval('s') AS ID", []string{"id"}, "nextval s -1 c0 c1", ""},
		{Postgres, "SELECT nextval('s')::bigint", []string{"nextval"}, "nextval s -1 c0 c1", ""},
		{Postgres, "  SELECT nextval('s') ; ", []string{"nextval"}, "nextval s -1 c0 c1", ""},
		{Postgres, "SELECT getNextSequenceValue('s')", []string{"getnextsequencevalue"}, "nextval s -1 c0 c1", ""},
		{Postgres, "SELECT s.nextval, s.currval", []string{"nextval", "currval"}, "nextval s -1 c0 c1; currval s -1 c0 c1", ""},
		{Postgres, "SELECT nextval('s') FROM generate_series(1, 10)", []string{"nextval"}, "nextval s -1 c0 c1", "c1 c10"},
		{Postgres, "SELECT nextval('s') AS id FROM pg_catalog.generate_series(1, $1) AS g(i)", []string{"id"}, "nextval s -1 c0 c1", "c1 a0"},
		{Postgres, "SELECT nextval('s') FROM generate_series($1::int, $2::int) g", []string{"nextval"}, "nextval s -1 c0 c1", "a0 a1"},
		{MySQL, "SELECT NEXTVAL(s)", []string{"NEXTVAL(s)"}, "nextval s -1 c0 c1", ""},
		{MySQL, "SELECT NEXTVAL(s) AS Id FROM DUAL", []string{"Id"}, "nextval s -1 c0 c1", ""},
		{MySQL, "SELECT NEXT VALUE FOR s, SETVAL(s, ?, 0)", []string{"NEXT VALUE FOR s", "SETVAL(s, ?, 0)"}, "nextval s -1 c0 c1; setval s -1 a0 c0", ""},
		{MySQL, "SELECT setval(?, ?)", []string{"setval(?, ?)"}, "setval  0 a1 c1", ""},
		{SQLite, "SELECT nextval(?2), nextval(?)", []string{"nextval(?2)", "nextval(?)"}, "nextval  1 c0 c1; nextval  2 c0 c1", ""},
		{SQLite, "SELECT lastval() AS [Last]", []string{"Last"}, "lastval  -1 c0 c1", ""},
	} {
		t.Run(tc.d.String()+"/"+tc.sql, func(t *testing.T) {
			st := one(t, tc.d, tc.sql)
			if st.Kind != Local {
				t.Fatalf("Kind %v (err %v), want Local", st.Kind, st.Err)
			}
			if !reflect.DeepEqual(st.Columns, tc.cols) {
				t.Errorf("Columns %q, want %q", st.Columns, tc.cols)
			}
			if got := describeCalls(st.Calls); got != tc.calls {
				t.Errorf("calls %q, want %q", got, tc.calls)
			}
			got := ""
			if st.Series != nil {
				got = operand(st.Series.Start) + " " + operand(st.Series.End)
			}
			if got != tc.series {
				t.Errorf("series %q, want %q", got, tc.series)
			}
		})
	}
}

func operand(o Operand) string {
	if o.Arg >= 0 {
		return fmt.Sprintf("a%d", o.Arg)
	}
	return fmt.Sprintf("c%d", o.Value)
}

func describeCalls(calls []Call) string {
	s := ""
	for i, c := range calls {
		if i > 0 {
			s += "; "
		}
		s += fmt.Sprintf("%s %s %d %s %s", c.Func, c.Name, c.NameArg, operand(c.Value), operand(c.IsCalled))
	}
	return s
}

func TestRewrite(t *testing.T) {
	for _, tc := range []struct {
		d    Dialect
		sql  string
		want string // rendered with values 100, 101, ...
	}{
		{Postgres, "INSERT INTO t VALUES (nextval('s'), $1)", "INSERT INTO t VALUES (($2::int8), $1)"},
		{Postgres, "INSERT INTO t VALUES (nextval('s'), 'x')", "INSERT INTO t VALUES ((100::int8), 'x')"},
		{Postgres, "INSERT INTO t VALUES (nextval('s'), 'a'), (nextval('s'), 'b') RETURNING id",
			"INSERT INTO t VALUES ((100::int8), 'a'), ((101::int8), 'b') RETURNING id"},
		{Postgres, "INSERT INTO t VALUES (nextval('s'), $1), (nextval('s'), $2)",
			"INSERT INTO t VALUES (($3::int8), $1), (($4::int8), $2)"},
		{Postgres, "INSERT INTO t VALUES ($3, nextval('s'), $1)", "INSERT INTO t VALUES ($3, ($4::int8), $1)"},
		{Postgres, "INSERT INTO t (id) VALUES (nextval('s')) RETURNING id, currval('s')",
			"INSERT INTO t (id) VALUES ((100::int8)) RETURNING id, (101::int8)"},
		{Postgres, "INSERT INTO t (id) VALUES (nextval('s')) ON CONFLICT (id) DO UPDATE SET n = nextval('s')",
			"INSERT INTO t (id) VALUES ((100::int8)) ON CONFLICT (id) DO UPDATE SET n = (101::int8)"},
		{Postgres, "INSERT INTO t SELECT nextval('s'), $1", "INSERT INTO t SELECT ($2::int8), $1"},
		{Postgres, "SELECT nextval('s'), now()", "SELECT (100::int8) AS nextval, now()"},
		{Postgres, "SELECT nextval('s')+1", "SELECT (100::int8)+1"},
		{Postgres, "SELECT -nextval('s')", "SELECT -(100::int8)"},
		{Postgres, "SELECT 1-nextval('s')", "SELECT 1-(100::int8)"},
		{Postgres, "SELECT nextval('s')::int", "SELECT (100::int8)::int AS nextval"},
		{Postgres, "SELECT CAST(nextval('s') AS int), (nextval('s'))::numeric(10,2)x, nextval('s')::int n",
			"SELECT CAST((100::int8) AS int) AS nextval, ((101::int8))::numeric(10,2)x, (102::int8)::int n"},
		{Postgres, "SELECT nextval('s') + 1, abs(nextval('s')), -nextval('s')", "SELECT (100::int8) + 1, abs((101::int8)), -(102::int8)"},
		{Postgres, "UPDATE t SET x = (SELECT nextval('s')::int) RETURNING x", "UPDATE t SET x = (SELECT (100::int8)::int AS nextval) RETURNING x"},
		{Postgres, "SELECT nextval('s') WHERE $1", "SELECT ($2::int8) AS nextval WHERE $1"},
		{Postgres, "SELECT nextval('s')WHERE true", "SELECT (100::int8) AS nextval WHERE true"},
		{Postgres, "SELECT x.nextval, NEXT VALUE FOR y, 1", "SELECT (100::int8) AS nextval, (101::int8) AS nextval, 1"},
		{Postgres, "VALUES (nextval('s')), (nextval('s'))", "VALUES ((100::int8)), ((101::int8))"},
		{Postgres, "WITH n AS (SELECT nextval('s') AS id) INSERT INTO t SELECT id FROM n",
			"WITH n AS (SELECT (100::int8) AS id) INSERT INTO t SELECT id FROM n"},
		{Postgres, "SELECT (SELECT nextval('s')), 2", "SELECT (SELECT (100::int8) AS nextval), 2"},
		{Postgres, "SELECT nextval('s') UNION ALL SELECT nextval('s')", "SELECT (100::int8) AS nextval UNION ALL SELECT (101::int8)"},
		{Postgres, "SELECT nextval('s') IS DISTINCT FROM 5", "SELECT (100::int8) IS DISTINCT FROM 5"},
		{Postgres, "SELECT count(*), nextval('s') FROM t WHERE false", ""}, // rejected: see TestPerRow
		{Postgres, "CALL p(nextval('s'))", "CALL p((100::int8))"},
		{Postgres, "SELECT setval('s', $1) + 0", "SELECT (CASE WHEN $1::int8 IS NULL THEN NULL ELSE $2::int8 END) + 0"},
		{Postgres, "SELECT nextval($1) + setval($1, $2, $3)",
			"SELECT (CASE WHEN $1::text IS NULL THEN NULL ELSE $4::int8 END) + " +
				"(CASE WHEN $1::text IS NULL OR $2::int8 IS NULL OR $3::bool IS NULL THEN NULL ELSE $5::int8 END)"},
		{Postgres, "INSERT INTO t VALUES (nextval('a'), nextval(NULL::regclass), setval('s', NULL))",
			"INSERT INTO t VALUES ((100::int8), (NULL::int8), (NULL::int8))"},
		{Postgres, "INSERT INTO t VALUES (setval($1, NULL), $2)", "INSERT INTO t VALUES ((CASE WHEN $1::text IS NULL THEN NULL ELSE CASE WHEN NULL THEN $3::int8 END END), $2)"},
		{MySQL, "INSERT INTO t VALUES (NEXTVAL(s), ?)", "INSERT INTO t VALUES ((100), ?)"},
		{MySQL, "INSERT INTO t VALUES (NEXT VALUE FOR s, ?), (s.nextval, ?)", "INSERT INTO t VALUES ((100), ?), ((101), ?)"},
		{MySQL, "INSERT INTO t SET id = NEXTVAL(s), a = ?", "INSERT INTO t SET id = (100), a = ?"},
		{MySQL, "SELECT ?, NEXTVAL(?), ?", "SELECT ?, (CASE WHEN ? IS NULL THEN NULL ELSE 100 END) AS `NEXTVAL(?)`, ?"},
		{MySQL, "SELECT NEXTVAL(s), 1 FROM DUAL", "SELECT (100) AS `NEXTVAL(s)`, 1 FROM DUAL"},
		{MySQL, "SET @x = NEXTVAL(s)", "SET @x = (100)"},
		{MySQL, "SELECT 1 /*!50700 + NEXTVAL(s) */", "SELECT 1 /*!50700 + (100) */"},
		{SQLite, "INSERT INTO t VALUES (nextval(?), ?)", "INSERT INTO t VALUES ((CASE WHEN ?1 IS NULL THEN NULL ELSE 100 END), ?)"},
		{SQLite, "SELECT nextval('s'), 1", `SELECT (100) AS "nextval('s')", 1`},
	} {
		t.Run(tc.d.String()+"/"+tc.sql, func(t *testing.T) {
			st := one(t, tc.d, tc.sql)
			if tc.want == "" {
				if st.Kind != Reject {
					t.Errorf("Kind %v, want Reject", st.Kind)
				}
				return
			}
			if st.Kind != Rewrite {
				t.Fatalf("Kind %v (err %v), want Rewrite", st.Kind, st.Err)
			}
			values := make([]int64, len(st.Calls))
			for i := range values {
				values[i] = 100 + int64(i)
			}
			if got := string(st.AppendSQL(nil, values)); got != tc.want {
				t.Errorf("AppendSQL\n got %s\nwant %s", got, tc.want)
			}
			for i := range st.Calls {
				want := 0
				if tc.d == Postgres && st.params > 0 {
					want = st.params + 1 + i
				}
				if got := st.ParamNumber(i); got != want {
					t.Errorf("ParamNumber(%d) = %d, want %d", i, got, want)
				}
			}
		})
	}
}

func TestMultiStatement(t *testing.T) {
	sql := "CREATE SEQUENCE s; INSERT INTO t VALUES (nextval('s')); SELECT 1; SELECT nextval('s');  -- done"
	p, err := NewPlanner(Postgres, 0).Plan(sql)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	for _, st := range p.Statements {
		kinds = append(kinds, st.Kind)
	}
	if want := []Kind{SequenceDDL, Rewrite, PassThrough, Local}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	if p.NumCalls() != 1 {
		t.Errorf("NumCalls = %d, want 1", p.NumCalls())
	}
	b, bound := p.AppendSQL(nil, []int64{5}, false)
	if want := " INSERT INTO t VALUES ((5::int8)); SELECT 1"; string(b) != want || bound {
		t.Errorf("Plan.AppendSQL = %q, %v; want %q, false", b, bound, want)
	}
	b, bound = p.AppendSQL(nil, []int64{5}, true) // seqshim.ddl=both
	if want := "CREATE SEQUENCE s; INSERT INTO t VALUES ((5::int8)); SELECT 1"; string(b) != want || bound {
		t.Errorf("Plan.AppendSQL with DDL = %q, %v; want %q, false", b, bound, want)
	}
	p = Build(Postgres, "SELECT $1::int; INSERT INTO t VALUES (nextval('s'), nextval('s'))")
	b, bound = p.AppendSQL(nil, nil, false)
	if want := "SELECT $1::int; INSERT INTO t VALUES (($2::int8), ($3::int8))"; string(b) != want || !bound {
		t.Errorf("Plan.AppendSQL with parameters = %q, %v; want %q, true", b, bound, want)
	}

	// A rejected statement anywhere rejects the string.
	p, err = NewPlanner(Postgres, 0).Plan("SELECT nextval('s'); UPDATE t SET a = nextval('s')")
	if err == nil || p.Err != err || p.Statements[1].Err != err {
		t.Errorf("err %v, plan %+v", err, p)
	}

	// Semicolons inside a SQL-standard function body do not split it (and a
	// body calling nextval is refused: the database would evaluate it).
	body := "CREATE FUNCTION f() RETURNS bigint LANGUAGE sql BEGIN ATOMIC SELECT CASE WHEN true THEN 1 END; SELECT nextval('s'); END"
	if p := Build(Postgres, body+"; SELECT nextval('s')"); len(p.Statements) != 2 || p.Statements[0].Text != body || p.Statements[0].Kind != Reject {
		t.Errorf("function body split: %+v", p.Statements)
	}
	trig := "CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO u VALUES (nextval('s')); END"
	if p := Build(SQLite, trig+";SELECT 1"); len(p.Statements) != 2 || p.Statements[0].Text != trig || p.Statements[0].Kind != Reject {
		t.Errorf("trigger body split: %+v", p.Statements)
	}
}
