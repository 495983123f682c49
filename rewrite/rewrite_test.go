package rewrite

import (
	"errors"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// one plans sql and returns its only statement.
func one(t *testing.T, d Dialect, sql string) Statement {
	t.Helper()
	p := Build(d, sql)
	if len(p.Statements) != 1 {
		t.Fatalf("%s %q: %d statements (pass through %v), want 1", d, sql, len(p.Statements), p.PassThrough())
	}
	return p.Statements[0]
}

func TestMayTrigger(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want bool
	}{
		{"SELECT * FROM t WHERE id = $1", false},
		{"INSERT INTO t (a, b) VALUES ($1, $2)", false},
		{"UPDATE t SET v = v + 1", false},
		{"", false},
		{"nextval", true},
		{"NEXTVAL", true},
		{"select CurrVal('s')", true},
		{"select lastval()", true},
		{"select setval('s', 1)", true},
		{"select getNextSequenceValue('s')", true},
		{"select next value for s", true},
		{"create sequence s", true},
		{"SEQUENCE", true},
		{"select s.NextVal", true},
		{"SELECT interval 'x'", false},
		{"SELECT evaluation FROM t", false},
		{"CREATE TABLE t (id serial)", true}, // a statement starting with CREATE
		{"SELECT 'create'", false},
		{"SELECT 's'::regclass", true},
		{"SELECT $1::REGCLASS::text", true},
		{"SELECT to_regclass('s')", true}, // planned, and passes through
		{"SELECT regclas, egclass FROM t GROUP BY 1", false},
	} {
		// Short strings take a byte loop, long ones a search per pivot letter.
		for _, pad := range []string{"", "  ", strings.Repeat(" ", shortScan)} {
			sql := pad + tc.sql + pad
			if got := mayTrigger(sql); got != tc.want {
				t.Errorf("mayTrigger(%q) = %v, want %v", sql, got, tc.want)
			}
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		d    Dialect
		sql  string
		name string
	}{
		{Postgres, "SELECT nextval('orders_seq')", "orders_seq"},
		{Postgres, "SELECT nextval('ORDERS_SEQ')", "orders_seq"},
		{Postgres, `SELECT nextval('"orders_seq"')`, "orders_seq"},
		{Postgres, "SELECT nextval('public.orders_seq')", "orders_seq"},
		{Postgres, "SELECT nextval(' Public . Orders_Seq ')", "orders_seq"},
		{Postgres, "SELECT nextval('orders_seq'::regclass)", "orders_seq"},
		{Postgres, "SELECT nextval('orders_seq'::text::regclass)", "orders_seq"},
		{Postgres, `SELECT nextval('"Orders_Seq"')`, `"Orders_Seq"`},
		{Postgres, `SELECT nextval('"it''s"')`, `"it's"`},
		{Postgres, `SELECT nextval('app.s')`, `app.s`},
		{Postgres, `SELECT nextval('"App".s')`, `"App".s`},
		{Postgres, `SELECT nextval(E'orders\_seq')`, "orders_seq"},
		{Postgres, `SELECT nextval(e'\"X\"')`, `"X"`},
		{Postgres, `SELECT nextval($$orders_seq$$)`, "orders_seq"},
		{Postgres, `SELECT nextval($q$Orders_Seq$q$)`, "orders_seq"},
		{Postgres, `SELECT nextval(U&'orders\005fseq')`, "orders_seq"},
		{Postgres, `SELECT nextval(N'orders_seq')`, "orders_seq"},
		{Postgres, `SELECT NEXTVAL('orders_seq')`, "orders_seq"},
		{Postgres, `SELECT pg_catalog.nextval('orders_seq')`, "orders_seq"},
		{Postgres, `SELECT PG_CATALOG . NextVal ( 'orders_seq' )`, "orders_seq"},
		{Postgres, `SELECT getNextSequenceValue('orders_seq')`, "orders_seq"},
		{Postgres, `SELECT GETNEXTSEQUENCEVALUE('Orders_Seq')`, "orders_seq"},
		{Postgres, `SELECT orders_seq.nextval`, "orders_seq"},
		{Postgres, `SELECT ORDERS_SEQ.NEXTVAL`, "orders_seq"},
		{Postgres, `SELECT "Orders_Seq".nextval`, `"Orders_Seq"`},
		{Postgres, `SELECT public.orders_seq.nextval`, "orders_seq"},
		{Postgres, `SELECT app."S".currval`, `app."S"`},
		{Postgres, `SELECT U&"\0053".nextval`, `"S"`},
		{Postgres, `SELECT NEXT VALUE FOR orders_seq`, "orders_seq"},
		{Postgres, `SELECT next  value	for Public.ORDERS_SEQ`, "orders_seq"},
		{Postgres, `SELECT NEXT VALUE FOR "Orders_Seq"`, `"Orders_Seq"`},
		{Postgres, `SELECT nextval('` + strings.Repeat("a", 70) + `')`, strings.Repeat("a", 63)},
		{MySQL, "SELECT nextval('orders_seq')", "orders_seq"},
		{MySQL, "SELECT NEXTVAL(orders_seq)", "orders_seq"},
		{MySQL, "SELECT NEXTVAL(`Orders_Seq`)", `"Orders_Seq"`},
		{MySQL, "SELECT NEXTVAL(`a``b`)", "\"a`b\""},
		{MySQL, "SELECT nextval(app.s)", "app.s"},
		{MySQL, `SELECT nextval("orders_seq")`, "orders_seq"},
		{MySQL, `SELECT nextval('orders\_seq')`, "orders_seq"},
		{MySQL, "SELECT orders_seq.NEXTVAL", "orders_seq"},
		{MySQL, "SELECT `Orders_Seq`.nextval", `"Orders_Seq"`},
		{MySQL, "SELECT NEXT VALUE FOR `app`.`s`", "app.s"},
		{MySQL, "SELECT getNextSequenceValue('S')", "s"},
		{SQLite, "SELECT nextval('orders_seq')", "orders_seq"},
		{SQLite, "SELECT nextval([Orders_Seq])", `"Orders_Seq"`},
		{SQLite, `SELECT nextval("Orders_Seq")`, `"Orders_Seq"`},
		{SQLite, "SELECT nextval(`orders_seq`)", "orders_seq"},
		{SQLite, "SELECT [S].nextval", `"S"`},
		{SQLite, "SELECT NEXT VALUE FOR s", "s"},
	} {
		t.Run(tc.d.String()+"/"+tc.sql, func(t *testing.T) {
			st := one(t, tc.d, tc.sql)
			if st.Err != nil {
				t.Fatalf("Err = %v", st.Err)
			}
			if st.Kind != Local || len(st.Calls) != 1 {
				t.Fatalf("Kind %v with %d calls, want Local with 1", st.Kind, len(st.Calls))
			}
			c := st.Calls[0]
			if c.Name != tc.name || c.NameArg != -1 {
				t.Errorf("Name %q NameArg %d, want %q -1", c.Name, c.NameArg, tc.name)
			}
			if c.Start != len("SELECT ") || c.End != len(tc.sql) {
				t.Errorf("call site [%d, %d), want [7, %d)", c.Start, c.End, len(tc.sql))
			}
		})
	}
}

func TestBadNames(t *testing.T) {
	for _, tc := range []struct {
		sql, code string
	}{
		{"SELECT nextval('a b')", sequence.CodeInvalidName},
		{"SELECT nextval('')", sequence.CodeInvalidName},
		{"SELECT nextval('a.b.c')", sequence.CodeFeatureNotSupported},
		{"SELECT nextval('a.b.c.d')", "42601"},
		{"SELECT nextval('s' || 'x')", sequence.CodeFeatureNotSupported},
		{"SELECT nextval(pg_get_serial_sequence('t', 'id'))", sequence.CodeFeatureNotSupported},
		{"SELECT nextval(s)", sequence.CodeFeatureNotSupported},
		{"SELECT nextval('s'::oid)", sequence.CodeFeatureNotSupported},
		{"SELECT setval('s', (SELECT max(id) FROM t))", sequence.CodeFeatureNotSupported},
		{"SELECT setval('s', 5, maybe())", sequence.CodeFeatureNotSupported},
		{"SELECT setval('s', 1.5)", "42883"},
		{"SELECT setval('s', 9223372036854775808, true)", "42883"},
		{"SELECT setval('s', 'abc')", "22P02"},
		{"SELECT setval('s', '9223372036854775808')", sequence.CodeNumericOutOfRange},
		{"SELECT setval('s', 5, 'maybe')", "22P02"},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			p, err := NewPlanner(Postgres, 0).Plan(tc.sql)
			var se *sequence.Error
			if !errors.As(err, &se) || se.Code != tc.code {
				t.Fatalf("err = %v, want a *sequence.Error with code %s", err, tc.code)
			}
			if p.Statements[0].Kind != Reject || p.Err != err {
				t.Errorf("Kind %v, plan Err %v", p.Statements[0].Kind, p.Err)
			}
			if tc.code == sequence.CodeFeatureNotSupported && !strings.Contains(tc.sql, "a.b.c") && !errors.Is(err, ErrUnsupported) {
				t.Errorf("%v does not wrap ErrUnsupported", err)
			}
		})
	}
}
