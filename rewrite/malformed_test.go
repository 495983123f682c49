package rewrite

import (
	"errors"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// TestMalformedRefused: texts the database refuses whole, before it runs
// any statement, never have a call served. PostgreSQL refuses a text that
// is not UTF-8 with 22021 (seqshim says so itself, with PostgreSQL's
// message), and a control character outside literals and comments with
// 42601 (the text passes through; a vertical tab only before version 16,
// so seqshim refuses that one itself: a later version would run the call
// from its own sequence); MySQL and
// SQLite get 42601 for a NUL byte, which PostgreSQL refuses at the protocol
// level (the text passes through).
func TestMalformedRefused(t *testing.T) {
	for _, tc := range []struct {
		d         Dialect
		sql       string
		code, msg string // "pass": passed through; "": read, not refused
	}{
		{Postgres, "SELECT nextval('s'), '\xff'", "22021", `invalid byte sequence for encoding "UTF8": 0xff`},
		{Postgres, "SELECT nextval('s') AS \"\xc3\"", "22021", `invalid byte sequence for encoding "UTF8": 0xc3 0x22`},
		{Postgres, "SELECT nextval('s'), 'é\xe2\x82'", "22021", `invalid byte sequence for encoding "UTF8": 0xe2 0x82 0x27`},
		{Postgres, "SELECT nextval('s'), '\xf0\x9f\x98'", "22021", `invalid byte sequence for encoding "UTF8": 0xf0 0x9f 0x98 0x27`},
		{Postgres, "SELECT nextval('s'), '\xed\xa0\x80'", "22021", `invalid byte sequence for encoding "UTF8": 0xed 0xa0 0x80`},
		{Postgres, "SELECT\vnextval('s')", "42601", "syntax error at or near \"\v\""},
		{Postgres, "SELECT nextval('s')\x01", "pass", ""},
		{Postgres, "SELECT nextval('s')\x7f", "pass", ""},
		{Postgres, "SELECT nextval('s'), '\x01\v' /* \x02 */ -- \x03", "", ""}, // inside literals and comments
		{Postgres, "SELECT nextval('s')\x01, (", "pass", ""},                   // unbalanced: the database's error
		{Postgres, "SELECT nextval('s'); SELECT 1\x00", "pass", ""},
		{MySQL, "SELECT nextval(s); SELECT 1\x00", "42601", "seqshim: syntax error: a NUL byte at offset 27; nothing of the text was run"},
		{SQLite, "SELECT 1\x00; SELECT nextval('s')", "42601", "seqshim: syntax error: a NUL byte at offset 8; nothing of the text was run"},
		{MySQL, "SELECT nextval(s), '\xff'\v", "", ""}, // read as it is
	} {
		p := Build(tc.d, tc.sql)
		switch tc.code {
		case "pass":
			if !p.PassThrough() {
				t.Errorf("%s %q: not passed through: %+v", tc.d, tc.sql, p.Statements)
			}
			continue
		case "":
			if p.Err != nil || p.NumCalls() != 1 {
				t.Errorf("%s %q: %v, %d calls; want one call read", tc.d, tc.sql, p.Err, p.NumCalls())
			}
			continue
		}
		var se *sequence.Error
		if !errors.As(p.Err, &se) || se.Code != tc.code || se.Message != tc.msg || len(p.Statements) != 1 || p.Statements[0].Kind != Reject {
			t.Errorf("%s %q: %v (%+v), want %s %s", tc.d, tc.sql, p.Err, p.Statements, tc.code, tc.msg)
		}
	}
}

// TestVisibleSyntaxError: a syntax error the tokens show makes PostgreSQL
// refuse the whole string before it runs any of it, so seqshim refuses it
// with 42601 and draws nothing, even when the error is in a statement
// after the call; valid texts that look alike are read as usual (each
// checked on PostgreSQL 15).
func TestVisibleSyntaxError(t *testing.T) {
	for _, tc := range []struct {
		sql string
		msg string // "": read (served, or refused for another reason: 0A000 per row)
	}{
		{"SELEC nextval('s')", `syntax error at or near "SELEC"`},
		{"SELECT nextval('s'); SELEC 1", `syntax error at or near "SELEC"`},
		{"'x' SELECT nextval('s')", `syntax error at or near "'x'"`},
		{`"SELECT" nextval('s')`, `syntax error at or near ""SELECT""`},
		{"nextval('s')", `syntax error at or near "nextval"`},
		{"$1 SELECT nextval('s')", `syntax error at or near "$1"`},
		{"SELECT nextval('s') +", "syntax error at end of input"},
		{"SELECT nextval('s'),", "syntax error at end of input"},
		{"SELECT nextval('s') AS", "syntax error at end of input"},
		{"SELECT nextval('s') FROM", "syntax error at end of input"},
		{"SELECT nextval('s') WHERE", "syntax error at end of input"},
		{"SELECT nextval('s')::", "syntax error at end of input"},
		{"SELECT nextval('s') !", "syntax error at end of input"},
		{"SELECT nextval('s'), t.", "syntax error at end of input"},
		{"SELECT nextval('s'); SELECT 1 +; SELECT 2", `syntax error at or near ";"`},
		{"SELECT (SELECT nextval('s'); SELECT 2)", `syntax error at or near ";"`},
		{"SELECT nextval('s'),\vnextval('s')", "syntax error at or near \"\v\""},
		{"SELECT nextval('s'),, 1", `syntax error at or near ","`},
		{`CREATE SEQUENCE ""`, `zero-length delimited identifier at or near """"`},
		{`SELECT nextval('s') AS u&""`, `zero-length delimited identifier at or near "u&"""`},
		{"SELECT setval('s', 5, )", `syntax error at or near ")"`},
		{"INSERT INTO t VALUES (, nextval('s'))", `syntax error at or near ","`},
		{"SELECT ARRAY[nextval('s'), ]", `syntax error at or near "]"`},
		{"INSERT INTO t VALUES (nextval('s')) RETURNING", "syntax error at end of input"},
		{"SELECT nextval('s') FROM t ORDER", "syntax error at end of input"},
		{"SELECT nextval('s') AND", ""}, // AND is a bare column label
		{"SELECT nextval('s') OR", ""},
		{"SELECT nextval('s'), * FROM t", ""},
		{"SELECT t.*, nextval('s') FROM t ORDER BY 1 DESC", ""},
		{"(SELECT nextval('s'))", ""},
		{"VALUES (nextval('s'))", ""},
		{"WITH x AS (SELECT nextval('s')) SELECT * FROM x", ""},
		{"SELECT nextval('s') AS \"as\", nextval('s') \"from\"", ""},
		{"CREATE RULE r AS ON INSERT TO t DO ALSO (NOTIFY a; NOTIFY b); SELECT nextval('s')", ""},
		{"ANALYSE t; SELECT nextval('s')", ""},
		{"SELECT nextval('s') FROM t WHERE a[1:2] = b[1]", ""},
		{"SELECT nextval('s'), f(a, (b), [c], ','), ARRAY[1, 2]", ""},
		// After AS or a dot, any keyword is a name; an operator ends
		// ORDER BY … USING op and OPERATOR n op (found by running
		// PostgreSQL's regression scripts through the planner).
		{"SELECT nextval('s') AS from", ""},
		{"SELECT nextval('s') AS returning", ""},
		{"INSERT INTO t (x) VALUES (nextval('s')) RETURNING x AS returning", ""},
		{"SELECT (SELECT nextval('s')) FROM t WHERE t.x > t.limit", ""},
		{"SELECT (SELECT nextval('s')) FROM public.limit", ""},
		{"SELECT nextval('s') ORDER BY 1 USING >", ""},
		{"SELECT x, (SELECT nextval('s')) FROM t ORDER BY x USING ~<~", ""},
		{"SELECT nextval('s') ORDER BY 1 USING OPERATOR(pg_catalog.>)", ""},
		{"SELECT nextval('s') FROM t WHERE a >", "syntax error at end of input"},
		{"SELECT nextval('s') AS x FROM", "syntax error at end of input"},
	} {
		p := Build(Postgres, tc.sql)
		var se *sequence.Error
		switch {
		case tc.msg == "":
			if errors.As(p.Err, &se) && se.Code == sequence.CodeSyntaxError || p.PassThrough() {
				t.Errorf("%q: %v, %+v; want a call read", tc.sql, p.Err, p.Statements)
			}
		case !errors.As(p.Err, &se) || se.Code != sequence.CodeSyntaxError || se.Message != tc.msg || len(p.Statements) != 1 || p.Statements[0].Text != tc.sql:
			t.Errorf("%q: %v (%+v), want 42601 %s", tc.sql, p.Err, p.Statements, tc.msg)
		}
	}
}

// TestQuotedFunctionNames: PostgreSQL calls its nextval for "nextval"('s')
// too, from its own sequence: the quoted forms are calls like the others.
// "NEXTVAL" names another function, which the database reports missing.
func TestQuotedFunctionNames(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		fn   Func // 0: passed through
		name string
	}{
		{`SELECT "nextval"('s')`, Nextval, "s"},
		{`SELECT "pg_catalog".nextval('s')`, Nextval, "s"},
		{`SELECT pg_catalog."setval"('s', 5)`, Setval, "s"},
		{`SELECT "pg_catalog"."currval"('s')`, Currval, "s"},
		{`SELECT U&"nextval"('s')`, Nextval, "s"},
		{`SELECT U&"\006Eextval"('s')`, Nextval, "s"},
		{`SELECT "NEXTVAL"('s')`, 0, ""},
		{`SELECT "getnextsequencevalue"('s')`, 0, ""},
		{`SELECT "PG_CATALOG".nextval('s')`, 0, ""},
	} {
		p := Build(Postgres, tc.sql)
		if tc.fn == 0 {
			if !p.PassThrough() {
				t.Errorf("%s: not passed through: %+v", tc.sql, p.Statements)
			}
			continue
		}
		if len(p.Statements) != 1 || len(p.Statements[0].Calls) != 1 {
			t.Errorf("%s: %+v, want one call", tc.sql, p.Statements)
			continue
		}
		st := p.Statements[0]
		if c := st.Calls[0]; c.Func != tc.fn || c.Name != tc.name || st.Kind != Local || st.Columns[0] != tc.fn.String() {
			t.Errorf("%s: %v %+v columns %q, want Local %v of %s", tc.sql, st.Kind, c, st.Columns, tc.fn, tc.name)
		}
	}
}
