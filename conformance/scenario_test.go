package conformance_test

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/conformance"
)

func TestScenarioFilesParse(t *testing.T) {
	scenarios, err := conformance.LoadDir(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(scenarios) < 40 {
		t.Errorf("%d scenarios, want at least 40", len(scenarios))
	}
	multi, err := conformance.LoadDir(multiDBDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(multi) < 5 {
		t.Errorf("%d multi-database scenarios, want at least 5", len(multi))
	}
	for _, sc := range scenarios {
		if dbs := sc.DBNames(); len(dbs) != 1 {
			t.Errorf("%s: databases %v: the scenarios of %s run on one database (put it in %s)", sc.Path, dbs, scenarioDir, multiDBDir)
		}
	}
	for _, sc := range multi {
		if dbs := sc.DBNames(); len(dbs) < 2 {
			t.Errorf("%s: databases %v, want several", sc.Path, dbs)
		}
		ids := 0
		for _, st := range sc.Steps {
			ids += len(st.IDs)
			if st.Differs && st.Seqshim == st.Expect {
				t.Errorf("%s:%d: differs, but its %s section is PostgreSQL's transcript", sc.Path, st.Line, conformance.SeqshimSection)
			}
		}
		if ids == 0 {
			t.Errorf("%s: no ids= step: nothing checks that ids are unique across the databases", sc.Path)
		}
	}
	for _, sc := range append(scenarios, multi...) {
		if sc.Title == "" {
			t.Errorf("%s: no title comment", sc.Path)
		}
		for _, st := range sc.Steps {
			if st.Expect == "" {
				t.Errorf("%s:%d: no expectation (go test -update fills it in from PostgreSQL)", sc.Path, st.Line)
			}
		}
		// Rewriting with the file's own expectations must give the file back:
		// -update changes nothing but expectations.
		data, err := os.ReadFile(sc.Path)
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Rewrite(sc.Expected()); string(got) != string(data) {
			t.Errorf("%s: Rewrite with its own expectations changes the file", sc.Path)
		}
	}
}

// TestScenarioCoverage keeps the suite covering what issue 8 lists: each
// entry must occur in some scenario's statements or expectations.
func TestScenarioCoverage(t *testing.T) {
	scenarios, err := conformance.LoadDir(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	var perRow, sessions, prepared, tx, modes, args, disconnects int
	for _, sc := range scenarios {
		for _, st := range sc.Steps {
			all.WriteString(st.SQL + "\n" + st.Expect + "\n")
			switch {
			case st.PerRow:
				perRow++
			case st.Session != conformance.DefaultSession:
				sessions++
			case st.Verb == conformance.Prepare:
				prepared++
			case st.Verb == conformance.Rollback:
				tx++
			case st.Verb == conformance.Disconnect:
				disconnects++
			case st.Mode != "":
				modes++
			case st.Args != nil:
				args++
			}
		}
	}
	text := all.String()
	for _, want := range []string{
		"AS smallint", "AS integer", "AS bigint", "INCREMENT -", "INCREMENT BY", "MINVALUE", "NO MINVALUE",
		"MAXVALUE", "NO MAXVALUE", "START WITH", "RESTART WITH", "RESTART\n", "CACHE", " CYCLE", "NO CYCLE",
		"IF NOT EXISTS", "IF EXISTS", "OWNED BY", "OWNED BY NONE", "RENAME TO", "DROP SEQUENCE a, missing, b",
		"CASCADE", "RESTRICT", "ALTER SEQUENCE s AS",
		"ERROR 22023: INCREMENT must not be zero", "must be less than MAXVALUE", "cannot be greater than MAXVALUE",
		"cannot be less than MINVALUE", "ERROR 42P07", "ERROR 42P01: sequence", "ERROR 42P01: relation",
		"reached maximum value", "reached minimum value", "(32767)", "(2147483647)", "(9223372036854775807)",
		"(-32768)", "(-2147483648)", "(-9223372036854775808)",
		"setval('s', 42)", "setval('s', 10, false)", "setval('s', 10, true)", "ERROR 22003",
		"ERROR 55000: currval", "ERROR 55000: lastval", "DISCARD SEQUENCES", "DISCARD ALL",
		"nextval('orders_seq')", "nextval('ORDERS_SEQ')", `nextval('"orders_seq"')`, "nextval('public.orders_seq')",
		"nextval('orders_seq'::regclass)", `"Orders_Seq"`, "pg_catalog.nextval",
		"'nextval(''s'')'", "$$nextval('s')$$", "/* nextval('s')", "-- nextval('s')",
		"RETURNING", "VALUES (nextval('s'), 'b'), (nextval('s'), 'c')", "; INSERT",
		"FROM generate_series(1, 5)", "INSERT INTO dst (id, x) SELECT nextval('s')", "UPDATE t SET id = nextval('s')",
		"SELECT nextval('s') FROM t", "ERROR 25P02", "ROLLBACK TO SAVEPOINT", "commit unexpectedly resulted in rollback",
		"CREATE TEMP SEQUENCE s", "CREATE SEQUENCE pg_temp.", "CREATE TEMP TABLE t (id serial", "GENERATED ALWAYS AS IDENTITY",
		"ON COMMIT DROP", "ON COMMIT DELETE ROWS", "DISCARD TEMP", "SELECT nextval('s'), nextval('public.s')",
		"INSERT INTO public.t", "SET search_path = pg_temp, public",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no scenario contains %q", want)
		}
	}
	for what, n := range map[string]int{"per-row": perRow, "session=b": sessions, "prepare": prepared,
		"rollback": tx, "mode=": modes, "args": args, "disconnect": disconnects} {
		if n == 0 {
			t.Errorf("no scenario step with %s", what)
		}
	}
}

// TestMultiDBCoverage keeps testdata/multidb covering what issue 25 lists.
func TestMultiDBCoverage(t *testing.T) {
	scenarios, err := conformance.LoadDir(multiDBDir)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	var recreate, together, differs, seen, three int
	for _, sc := range scenarios {
		if len(sc.DBNames()) >= 3 {
			three++
		}
		for _, st := range sc.Steps {
			all.WriteString(st.SQL + "\n" + st.Expect + "\n" + st.Seqshim + "\n")
			switch {
			case st.Verb == conformance.Recreate:
				recreate++
			case st.Together != "":
				together++
			case st.Differs:
				differs++
			case st.Seen != nil:
				seen++
			}
		}
	}
	text := all.String()
	for _, want := range []string{
		"CREATE SEQUENCE orders_seq", "bigserial", "GENERATED ALWAYS AS IDENTITY", "GENERATED BY DEFAULT AS IDENTITY",
		"serial PRIMARY KEY", "nextval('orders_seq')", "RETURNING", "DROP TABLE items", "DROP SEQUENCE orders_seq",
		"DROP SCHEMA app CASCADE", "OWNED BY", "DROP COLUMN id", "ADD COLUMN id bigserial", "DROP DEFAULT",
		"ALTER SEQUENCE s INCREMENT", "setval('s'", "ERROR 42P07: seqshim:", "ERROR 23502", "ERROR 42P01",
		"; CREATE TABLE", "currval('items_id_seq')", "lastval()",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no multi-database scenario contains %q", want)
		}
	}
	for what, n := range map[string]int{"recreate": recreate, "together": together, "differs": differs,
		"seen=": seen, "three databases": three} {
		if n == 0 {
			t.Errorf("no multi-database scenario with %s", what)
		}
	}
}

func TestParse(t *testing.T) {
	src := `# A title.
# More text.

exec session=b mode=simple args 5 'o''k' NULL true -3
INSERT INTO t VALUES ($1, $2, $3, $4, $5)

----
ok 1

query per-row=id,x
SELECT nextval('s') AS id, x FROM t
----
id INT8 | x INT4
1 | 1
2 | 2
(2 rows)

prepare stmt=p
SELECT 1
----
ok

query stmt=p
----
?column? INT4
1
(1 row)

begin session=b
----
ok
`
	sc, err := conformance.Parse("testdata/x.txt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "x" || sc.Title != "A title." || len(sc.Steps) != 5 {
		t.Fatalf("Parse = name %q title %q, %d steps; want x, \"A title.\", 5", sc.Name, sc.Title, len(sc.Steps))
	}
	want := []conformance.Step{
		{Line: 4, Verb: conformance.Exec, Session: "b", Mode: "simple", SQL: "INSERT INTO t VALUES ($1, $2, $3, $4, $5)",
			Args: []any{int64(5), "o'k", nil, true, int64(-3)}, Expect: "ok 1"},
		{Line: 10, Verb: conformance.Query, Session: "a", SQL: "SELECT nextval('s') AS id, x FROM t",
			PerRow: true, PerRowCols: []string{"id", "x"}, Expect: "id INT8 | x INT4\n1 | 1\n2 | 2\n(2 rows)"},
		{Line: 18, Verb: conformance.Prepare, Session: "a", Stmt: "p", SQL: "SELECT 1", Expect: "ok"},
		{Line: 23, Verb: conformance.Query, Session: "a", Stmt: "p", Expect: "?column? INT4\n1\n(1 row)"},
		{Line: 29, Verb: conformance.Begin, Session: "b", Expect: "ok"},
	}
	for i := range want {
		got := sc.Steps[i]
		w := want[i]
		if got.Line != w.Line || got.Verb != w.Verb || got.Session != w.Session || got.SQL != w.SQL ||
			got.Stmt != w.Stmt || got.Mode != w.Mode || got.PerRow != w.PerRow || got.Expect != w.Expect ||
			!reflect.DeepEqual(got.Args, w.Args) || !reflect.DeepEqual(got.PerRowCols, w.PerRowCols) {
			t.Errorf("step %d = %+v\nwant %+v", i, got, w)
		}
	}

	tr := sc.Expected()
	tr[0] = "ok 2\nand more"
	out := string(sc.Rewrite(tr))
	if want := strings.Replace(src, "----\nok 1\n", "----\nok 2\nand more\n", 1); out != want {
		t.Errorf("Rewrite =\n%s\nwant\n%s", out, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"unknown verb", "select\nSELECT 1\n----\nok\n", "unknown verb"},
		{"no separator", "query\nSELECT 1\n", "no ---- line"},
		{"no steps", "# only a comment\n", "no steps"},
		{"unknown option", "query bogus\nSELECT 1\n----\n", "unknown option"},
		{"unknown mode", "query mode=fast\nSELECT 1\n----\n", "unknown mode"},
		{"bad argument", "query args 1.5\nSELECT $1\n----\n", "want an integer"},
		{"unterminated quote", "query args 'x\nSELECT $1\n----\n", "unterminated"},
		{"args without values", "query args\nSELECT 1\n----\n", "args without arguments"},
		{"sql and stmt", "query stmt=p\nSELECT 1\n----\n", "either a statement or stmt="},
		{"neither sql nor stmt", "exec\n----\n", "either a statement or stmt="},
		{"prepare without name", "prepare\nSELECT 1\n----\n", "prepare needs stmt="},
		{"begin with sql", "begin\nSELECT 1\n----\n", "begin takes only session="},
		{"mode on prepared", "query stmt=p mode=simple\n----\n", "mode= does not apply"},
		{"readonly on query", "query readonly\nSELECT 1\n----\n", "unknown option"},
		{"session moves", "query session=x\nSELECT 1\n----\n\nquery session=x db=b\nSELECT 1\n----\n", "session x is on database a"},
		{"default session moves", "query\nSELECT 1\n----\n\nquery session=a db=b\nSELECT 1\n----\n", "session a is on database a"},
		{"recreate without db", "recreate\n----\nok\n", "recreate takes only db=NAME"},
		{"recreate with session", "recreate db=b session=b\n----\nok\n", "recreate takes only db=NAME"},
		{"recreate with sql", "recreate db=b\nSELECT 1\n----\nok\n", "recreate takes only db=NAME"},
		{"disconnect with sql", "disconnect\nSELECT 1\n----\nok\n", "disconnect takes only session="},
		{"disconnect together", "disconnect together\n----\nok\n\nquery session=b together\nSELECT 1\n----\n", "disconnect takes only session="},
		{"ids on exec", "exec ids=id\nINSERT INTO t VALUES (1)\n----\n", "name columns of a query"},
		{"ids empty space", "query ids=id@\nSELECT 1\n----\n", "want COL or COL@SPACE"},
		{"seen empty column", "query seen=,x\nSELECT 1\n----\n", "want COL or COL@SPACE"},
		{"ids and per-row", "query per-row ids=id\nSELECT 1\n----\n", "per-row does not go with"},
		{"together alone", "query together\nSELECT 1\n----\n", "at least two consecutive steps"},
		{"together one session", "query together\nSELECT 1\n----\n\nquery together\nSELECT 2\n----\n", "session a has another step"},
		{"together split", "query db=a together=x\nSELECT 1\n----\n\nquery db=b together=y\nSELECT 2\n----\n", "together=x needs at least two"},
		{"differs without section", "query differs\nSELECT 1\n----\nx\n", "differs needs a ---- seqshim section"},
		{"section without differs", "query\nSELECT 1\n----\nx\n---- seqshim\ny\n", "section on a step without differs"},
		{"empty section", "query differs\nSELECT 1\n----\nx\n---- seqshim\n\nquery\nSELECT 1\n----\n", "empty ---- seqshim section"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := conformance.Parse("x.txt", []byte(tc.src))
			if !errors.Is(err, conformance.ErrSyntax) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %v; want ErrSyntax containing %q", err, tc.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	sc, err := conformance.Parse("x.txt", []byte(`# per-row rules.
query
SELECT nextval('s')
----
x

query per-row=id
SELECT x, nextval('s') AS id FROM t
----
x

exec per-row
UPDATE t SET id = nextval('s')
----
x

query
SELECT currval('s')
----
x
`))
	if err != nil {
		t.Fatal(err)
	}
	const (
		one       = "nextval INT8\n1\n(1 row)"
		rows      = "x INT4 | id INT8\n1 | 2\n2 | 3\n(2 rows)"
		otherRows = "x INT4 | id INT8\n1 | 7\n2 | 9\n(2 rows)"
		sameValue = "x INT4 | id INT8\n1 | 7\n2 | 7\n(2 rows)"
		oneRow    = "x INT4 | id INT8\n1 | 7\n(1 row)"
		rejected  = "ERROR 0A000: nextval is evaluated once per row here"
		cur       = "currval INT8\n3\n(1 row)"
	)
	native := conformance.Transcript{one, rows, "ok 2", cur}
	for _, tc := range []struct {
		name       string
		got        conformance.Transcript
		mismatches []int // steps
		rejectedAt int
	}{
		{"identical", native, nil, -1},
		{"plain step differs", conformance.Transcript{"nextval INT8\n5\n(1 row)", rows, "ok 2", cur}, []int{0}, -1},
		{"plain step 0A000", conformance.Transcript{rejected, rows, "ok 2", cur}, []int{0}, -1},
		{"last step differs", conformance.Transcript{one, rows, "ok 2", "ERROR 55000: x"}, []int{3}, -1},
		{"per-row rejected ends comparison", conformance.Transcript{one, rejected, "junk", "junk"}, nil, 1},
		{"per-row distinct other values", conformance.Transcript{one, otherRows, "junk", "junk"}, nil, 1},
		{"per-row one value for many rows", conformance.Transcript{one, sameValue, "ok 2", cur}, []int{1}, -1},
		{"per-row other row count", conformance.Transcript{one, oneRow, "ok 2", cur}, []int{1}, -1},
		{"per-row other error", conformance.Transcript{one, "ERROR 42P01: nope", "ok 2", cur}, []int{1}, -1},
		{"per-row exec rejected", conformance.Transcript{one, rows, rejected, "junk"}, nil, 2},
		{"per-row exec differs", conformance.Transcript{one, rows, "ok 1", cur}, []int{2}, -1},
		{"short transcript", conformance.Transcript{one}, []int{1, 2, 3}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := conformance.Compare(sc, native, tc.got)
			var steps []int
			for _, m := range o.Mismatches {
				steps = append(steps, m.Step)
			}
			if !reflect.DeepEqual(steps, tc.mismatches) || o.RejectedAt != tc.rejectedAt {
				t.Errorf("Compare: mismatches at %v, rejected at %d; want %v, %d\n%s",
					steps, o.RejectedAt, tc.mismatches, tc.rejectedAt, conformance.Diff(sc, "got", o))
			}
			if o.OK() != (len(tc.mismatches) == 0) {
				t.Errorf("OK() = %v with %d mismatches", o.OK(), len(o.Mismatches))
			}
		})
	}

	// CompareExact allows nothing: a rejected per-row step is a mismatch.
	if o := conformance.CompareExact(sc, native, conformance.Transcript{one, rejected, "ok 2", cur}); o.OK() {
		t.Errorf("CompareExact accepted a 0A000 per-row step")
	}
}

func TestCheckPerRow(t *testing.T) {
	st := conformance.Step{Verb: conformance.Query, PerRow: true}
	for _, tc := range []struct {
		out string
		ok  bool
	}{
		{"nextval INT8\n1\n2\n3\n(3 rows)", true},
		{"nextval INT8\n1\n1\n(2 rows)", false},
		{"nextval INT8\n1\n(1 row)", false},
		{"ERROR 2200H: reached", false},
	} {
		if err := conformance.CheckPerRow(&st, tc.out); (err == nil) != tc.ok {
			t.Errorf("CheckPerRow(%q) = %v; want ok %v", tc.out, err, tc.ok)
		}
	}
}

func ExampleParse() {
	sc, err := conformance.Parse("01_example.txt", []byte(`# Two sessions see their own currval.

exec
CREATE SEQUENCE s
----
ok 0

query session=b args 's'
SELECT nextval($1)
----
nextval INT8
1
(1 row)
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sc.Name+":", sc.Title)
	for _, st := range sc.Steps {
		fmt.Printf("line %d: %s on session %s, args %v: %q\n", st.Line, st.Verb, st.Session, st.Args, st.SQL)
	}
	// Output:
	// 01_example: Two sessions see their own currval.
	// line 3: exec on session a, args []: "CREATE SEQUENCE s"
	// line 8: query on session b, args [s]: "SELECT nextval($1)"
}

func TestParseBeginReadOnly(t *testing.T) {
	sc, err := conformance.Parse("x.txt", []byte("# t\nbegin readonly session=b\n----\nok\n\nbegin\n----\nok\n"))
	if err != nil {
		t.Fatal(err)
	}
	if st := sc.Steps[0]; !st.ReadOnly || st.Session != "b" || sc.Steps[1].ReadOnly {
		t.Errorf("steps %+v", sc.Steps)
	}
}

func TestParseMultiDB(t *testing.T) {
	src := `# Several databases.
exec db=b
CREATE SEQUENCE s
----
ok 0

query session=x db=c ids=id@items,nextval seen=old
SELECT 1 AS id, 2 AS nextval, 3 AS old
----
x

query session=x
SELECT 1
----
x

query together
SELECT 1
----
x

query db=b together
SELECT 2
----
x

query together=two
SELECT 3
----
x

query session=x together=two differs
SELECT 4
----
native
---- seqshim
seqshim ... text

recreate db=b
----
ok
`
	sc, err := conformance.Parse("x.txt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		verb              conformance.Verb
		session, db, grp  string
		ids, seen         []conformance.IDCol
		differs           bool
		expect, seqshimEx string
	}
	want := []row{
		{verb: conformance.Exec, session: "b", db: "b", expect: "ok 0"},
		{verb: conformance.Query, session: "x", db: "c", expect: "x",
			ids:  []conformance.IDCol{{Col: "id", Space: "items"}, {Col: "nextval", Space: "nextval"}},
			seen: []conformance.IDCol{{Col: "old", Space: "old"}}},
		{verb: conformance.Query, session: "x", db: "c", expect: "x"},
		{verb: conformance.Query, session: "a", db: "a", grp: "together", expect: "x"},
		{verb: conformance.Query, session: "b", db: "b", grp: "together", expect: "x"},
		{verb: conformance.Query, session: "a", db: "a", grp: "two", expect: "x"},
		{verb: conformance.Query, session: "x", db: "c", grp: "two", differs: true, expect: "native", seqshimEx: "seqshim ... text"},
		{verb: conformance.Recreate, db: "b", expect: "ok"},
	}
	if len(sc.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(sc.Steps), len(want))
	}
	for i, w := range want {
		st := sc.Steps[i]
		got := row{st.Verb, st.Session, st.DB, st.Together, st.IDs, st.Seen, st.Differs, st.Expect, st.Seqshim}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("step %d = %+v\nwant %+v", i, got, w)
		}
	}
	if got, want := sc.DBNames(), []string{"b", "c", "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("DBNames = %v, want %v", got, want)
	}
	if got, want := sc.Groups(), [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 5}, {5, 7}, {7, 8}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Groups = %v, want %v", got, want)
	}
	// -update rewrites PostgreSQL's expectation and keeps the seqshim section.
	tr := sc.Expected()
	tr[6] = "native 2"
	out := string(sc.Rewrite(tr))
	if want := strings.Replace(src, "----\nnative\n---- seqshim\n", "----\nnative 2\n---- seqshim\n", 1); out != want {
		t.Errorf("Rewrite =\n%s\nwant\n%s", out, want)
	}
}

func TestCompareIDs(t *testing.T) {
	sc, err := conformance.Parse("x.txt", []byte(`# ids.
query db=a ids=id@t
INSERT INTO t (v) VALUES ('a1'), ('a2') RETURNING id, v
----
x

query db=b ids=id@t
INSERT INTO t (v) VALUES ('b1') RETURNING id, v
----
x

query db=b seen=id@t
SELECT id, v FROM t
----
x

recreate db=b
----
ok

query db=b ids=id@t
INSERT INTO t (v) VALUES ('b1') RETURNING id, v
----
x

query db=b ids=nextval@s
SELECT nextval('s')
----
x
`))
	if err != nil {
		t.Fatal(err)
	}
	const (
		a12   = "id INT8 | v TEXT\n1 | a1\n2 | a2\n(2 rows)"
		b1    = "id INT8 | v TEXT\n1 | b1\n(1 row)"
		one   = "nextval INT8\n1\n(1 row)"
		okStr = "ok"
	)
	native := conformance.Transcript{a12, b1, b1, okStr, b1, one}
	for _, tc := range []struct {
		name   string
		got    conformance.Transcript
		steps  []int
		reason string // in the first mismatch
	}{
		{"unique across databases", conformance.Transcript{a12, "id INT8 | v TEXT\n3 | b1\n(1 row)",
			"id INT8 | v TEXT\n3 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", one}, nil, ""},
		{"another space may repeat a value", conformance.Transcript{a12, "id INT8 | v TEXT\n3 | b1\n(1 row)",
			"id INT8 | v TEXT\n3 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", "nextval INT8\n3\n(1 row)"}, nil, ""},
		{"native's values on every database", native, []int{1, 2, 4}, "was handed out before, at line 2 for PostgreSQL's 1 on database a"},
		{"same id after recreate", conformance.Transcript{a12, "id INT8 | v TEXT\n3 | b1\n(1 row)",
			"id INT8 | v TEXT\n3 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n3 | b1\n(1 row)", one}, []int{4}, "was handed out before, at line 7 for PostgreSQL's 1 on database b"},
		{"duplicate in one step", conformance.Transcript{"id INT8 | v TEXT\n5 | a1\n5 | a2\n(2 rows)", "id INT8 | v TEXT\n3 | b1\n(1 row)",
			"id INT8 | v TEXT\n3 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", one}, []int{0}, "row 2: id 5"},
		{"seen shows another row's id", conformance.Transcript{a12, "id INT8 | v TEXT\n3 | b1\n(1 row)",
			"id INT8 | v TEXT\n2 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", one}, []int{2}, "not for PostgreSQL's 1 on database b"},
		{"seen shows an id never handed out", conformance.Transcript{a12, "id INT8 | v TEXT\n3 | b1\n(1 row)",
			"id INT8 | v TEXT\n9 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", one}, []int{2}, "never handed out"},
		{"other cell differs", conformance.Transcript{a12, "id INT8 | v TEXT\n3 | b2\n(1 row)",
			"id INT8 | v TEXT\n3 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", one}, []int{1}, "column v is b2, want b1"},
		{"not an integer", conformance.Transcript{a12, "id INT8 | v TEXT\nx | b1\n(1 row)",
			"id INT8 | v TEXT\n3 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", one}, []int{1, 2}, "not an integer"},
		{"row count", conformance.Transcript{"id INT8 | v TEXT\n1 | a1\n(1 row)", "id INT8 | v TEXT\n3 | b1\n(1 row)",
			"id INT8 | v TEXT\n3 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", one}, []int{0}, "row counts differ"},
		{"an error", conformance.Transcript{a12, "ERROR 42701: column \"id\" specified more than once",
			"id INT8 | v TEXT\n3 | b1\n(1 row)", okStr, "id INT8 | v TEXT\n4 | b1\n(1 row)", one}, []int{1, 2}, "the target's is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := conformance.Compare(sc, native, tc.got)
			var steps []int
			for _, m := range o.Mismatches {
				steps = append(steps, m.Step)
			}
			if !reflect.DeepEqual(steps, tc.steps) {
				t.Errorf("mismatches at %v, want %v\n%s", steps, tc.steps, conformance.Diff(sc, "got", o))
			}
			if tc.reason != "" && len(o.Mismatches) > 0 && !strings.Contains(o.Mismatches[0].Reason, tc.reason) {
				t.Errorf("reason %q, want it to contain %q", o.Mismatches[0].Reason, tc.reason)
			}
		})
	}
	// PostgreSQL against its own expectations: exact, ids included.
	if o := conformance.CompareExact(sc, native, native); !o.OK() {
		t.Errorf("CompareExact of native with itself:\n%s", conformance.Diff(sc, "native", o))
	}
}

func TestCompareDiffers(t *testing.T) {
	sc, err := conformance.Parse("x.txt", []byte(`# differs.
exec db=c differs
CREATE SEQUENCE s INCREMENT 5
----
ok 0
---- seqshim
ERROR 42P07: sequence "s" (INCREMENT 1), used by database ...: one counter

query db=b differs
SELECT nextval('s') AS n
----
n INT8
2
(1 row)
---- seqshim
n INT8
1001
(1 row)
`))
	if err != nil {
		t.Fatal(err)
	}
	native := sc.Expected()
	for _, tc := range []struct {
		name  string
		got   conformance.Transcript
		steps []int
	}{
		{"seqshim's", conformance.Transcript{`ERROR 42P07: sequence "s" (INCREMENT 1), used by database 7/16384/conf_1, 7/16390/conf_2: one counter`,
			"n INT8\n1001\n(1 row)"}, nil},
		{"PostgreSQL's is not enough", native, []int{0, 1}},
		{"... stays within a line", conformance.Transcript{"ERROR 42P07: sequence \"s\" (INCREMENT 1), used by database x\ny: one counter",
			"n INT8\n1001\n(1 row)"}, []int{0}},
		{"another value", conformance.Transcript{`ERROR 42P07: sequence "s" (INCREMENT 1), used by database x: one counter`,
			"n INT8\n1002\n(1 row)"}, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := conformance.Compare(sc, native, tc.got)
			var steps []int
			for _, m := range o.Mismatches {
				steps = append(steps, m.Step)
				if !m.Seqshim {
					t.Errorf("step %d: mismatch not against the seqshim section", m.Step)
				}
			}
			if !reflect.DeepEqual(steps, tc.steps) {
				t.Errorf("mismatches at %v, want %v\n%s", steps, tc.steps, conformance.Diff(sc, "got", o))
			}
		})
	}
	// PostgreSQL is checked against its own expectation, never the seqshim one.
	if o := conformance.CompareExact(sc, sc.Expected(), native); !o.OK() {
		t.Errorf("CompareExact:\n%s", conformance.Diff(sc, "native", o))
	}
}

func TestCheckIDs(t *testing.T) {
	for _, tc := range []struct {
		opts, out string
		ok        bool
	}{
		{"ids=id", "id INT8 | v TEXT\n1 | x\n(1 row)", true},
		{"seen=id", "id INT8 | v TEXT\nNULL | x\n(1 row)", true},
		{"ids=id", "id INT8 | v TEXT\n(0 rows)", false},
		{"ids=id", "ERROR 42P01: relation \"t\" does not exist", false},
		{"ids=nope", "id INT8 | v TEXT\n1 | x\n(1 row)", false},
		{"ids=v", "id INT8 | v TEXT\n1 | x\n(1 row)", false},
	} {
		sc, err := conformance.Parse("x.txt", []byte("query "+tc.opts+"\nSELECT 1\n----\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := conformance.CheckIDs(&sc.Steps[0], tc.out); (err == nil) != tc.ok {
			t.Errorf("CheckIDs(%s, %q) = %v; want ok %v", tc.opts, tc.out, err, tc.ok)
		}
	}
}
