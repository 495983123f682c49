package rewrite

import (
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// TestHidden: calls written inside literals, quoted identifiers and comments
// are not calls, and are left byte for byte; a real call next to them is
// found and only it is replaced.
func TestHidden(t *testing.T) {
	for _, tc := range []struct {
		d      Dialect
		hidden string // holds a call that is not one
	}{
		{Postgres, `'nextval(''s'')'`},
		{Postgres, `'it''s nextval(''s'')'`},
		{Postgres, `E'\'nextval(\'s\')'`},
		{Postgres, `e'\\' || 'nextval(''s'')'`},
		{Postgres, `U&'nextval(''s'')'`},
		{Postgres, `N'nextval(''s'')'`},
		{Postgres, `B'1' || 'x' /* nextval('s') */`},
		{Postgres, `$$nextval('s')$$`},
		{Postgres, `$q$ $$ nextval('s') $$ $q$`},
		{Postgres, `$_1$nextval('s')$_1$`},
		{Postgres, `"nextval('s')"`},
		{Postgres, `"a"" nextval('s')"`},
		{Postgres, `U&"nextval('s')"`},
		{Postgres, "1 -- nextval('s')\n"},
		{Postgres, "1 /* nextval('s') */"},
		{Postgres, "1 /* /* nested */ nextval('s') */"},
		{Postgres, "1 /**/ /* NEXT VALUE FOR s */"},
		{Postgres, "'x' -- s.nextval\n"},
		{MySQL, `'nextval(''s'')'`},
		{MySQL, `'it\'s nextval(\'s\')'`},
		{MySQL, `'\\' '\'nextval(''s'')'`},
		{MySQL, `"nextval('s')"`},
		{MySQL, `"a\" nextval('s')"`},
		{MySQL, "`nextval('s')`"},
		{MySQL, "`a`` nextval('s')`"},
		{MySQL, "1 # nextval('s')\n"},
		{MySQL, "1 -- nextval('s')\n"},
		{MySQL, "1 /* nextval('s') */"},
		{MySQL, "1 /*+ nextval('s') */"},
		{MySQL, "X'00' /* s.nextval */"},
		{SQLite, `'nextval(''s'')'`},
		{SQLite, `"nextval('s')"`},
		{SQLite, "`nextval('s')`"},
		{SQLite, "[nextval('s')]"},
		{SQLite, "1 -- nextval('s')\n"},
		{SQLite, "1 /* nextval('s') */"},
	} {
		t.Run(tc.d.String()+"/"+tc.hidden, func(t *testing.T) {
			alone := "SELECT " + tc.hidden
			if p := Build(tc.d, alone); !p.PassThrough() {
				t.Errorf("%q: not a pass-through plan: %+v", alone, p.Statements)
			}
			sql := "SELECT " + tc.hidden + ", nextval('real') + 0, " + tc.hidden
			st := one(t, tc.d, sql)
			if st.Kind != Rewrite || len(st.Calls) != 1 || st.Calls[0].Name != "real" {
				t.Fatalf("%q: Kind %v calls %+v err %v, want one Rewrite call of real", sql, st.Kind, st.Calls, st.Err)
			}
			got := string(st.AppendSQL(nil, []int64{7}))
			seven := "(7)"
			if tc.d == Postgres {
				seven = "(7::int8)"
			}
			want := "SELECT " + tc.hidden + ", " + seven + " + 0, " + tc.hidden
			if got != want {
				t.Errorf("rewritten\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestDialectsDiffer: the same text lexes differently per dialect.
func TestDialectsDiffer(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		calls [3]int // number of calls found for Postgres, MySQL, SQLite
	}{
		// Backslash escapes a quote in MySQL only.
		{`SELECT '\', nextval('s'), '\'`, [3]int{1, 0, 1}},
		// "--" starts a comment everywhere but MySQL, which wants a space.
		{"SELECT 1 --nextval('s')\n", [3]int{0, 1, 0}},
		// # is a comment in MySQL only (an operator in PostgreSQL).
		{"SELECT 1 # nextval('s')\n", [3]int{1, 0, 1}},
		// Block comments nest in PostgreSQL only.
		{"SELECT /* /* */ nextval('s') /* */ */ 1", [3]int{0, 1, 1}},
		// MySQL runs the text of /*! */ comments.
		{"SELECT 1 /*!50700 + nextval('s') */", [3]int{0, 1, 0}},
		{"SELECT 1 /*! + x.*/nextval('s')", [3]int{1, 0, 1}},
		{"SELECT 1 /*! + nextval*/('s')", [3]int{0, 0, 0}},
		// Double quotes are a string in MySQL, an identifier elsewhere:
		// either way no call inside.
		{`SELECT "nextval('s')"`, [3]int{0, 0, 0}},
		// Backticks quote in MySQL and SQLite only.
		{"SELECT `x`, nextval('s')", [3]int{1, 1, 1}},
		// Dollar quotes exist in PostgreSQL only; $name is a parameter in
		// SQLite.
		{"SELECT $$nextval('s')$$", [3]int{0, 1, 0}},
	} {
		for i, d := range []Dialect{Postgres, MySQL, SQLite} {
			p := Build(d, tc.sql)
			n := 0
			for _, st := range p.Statements {
				n += len(st.Calls)
			}
			if n != tc.calls[i] {
				t.Errorf("%s %q: %d calls, want %d", d, tc.sql, n, tc.calls[i])
			}
		}
	}
}

// TestUnterminated: an unterminated literal or comment, or parentheses that
// do not pair up, pass through whole for PostgreSQL to report (it parses
// the whole string before it runs any of it); MySQL and SQLite run the
// statements of a string one by one, so seqshim refuses such a text itself
// with 42601. A NUL byte passes through for PostgreSQL (which refuses the
// message whole), and is refused with 42601 elsewhere.
func TestUnterminated(t *testing.T) {
	for _, tc := range []struct {
		d    Dialect
		sql  string
		pass bool
	}{
		{Postgres, "SELECT nextval('s'), 'oops", true},
		{Postgres, "SELECT nextval('s') /* oops", true},
		{Postgres, "SELECT nextval('s') /* /* */", true},
		{Postgres, "SELECT nextval('s'), $a$ oops $b$", true},
		{Postgres, `SELECT nextval('s'), "oops`, true},
		{Postgres, "SELECT (NEXT VALUE FOR\"0\" ", true},
		{Postgres, "SELECT nextval('s'); SELECT (1", true},
		{Postgres, "SELECT nextval('s'))", true},
		{Postgres, "CREATE SEQUENCE s (", true},
		{MySQL, `SELECT nextval('s'), 'oops\'`, false},
		{SQLite, "SELECT nextval('s'), [oops", false},
		{MySQL, "SELECT nextval('s') /*! + 1", false},
		{MySQL, "SELECT (NEXT VALUE FOR\"0\" ", false},
		{SQLite, "SELECT nextval('s'); SELECT (1", false},
		{Postgres, "SELECT nextval('s'), '\x00'", true},
		{MySQL, "SELECT x.\x00nextval(s)", false},
	} {
		p := Build(tc.d, tc.sql)
		switch {
		case tc.pass && !p.PassThrough():
			t.Errorf("%s %q: not passed through", tc.d, tc.sql)
		case !tc.pass && (p.Err == nil || p.Err.(*sequence.Error).Code != sequence.CodeSyntaxError):
			t.Errorf("%s %q: %v, want a 42601 error", tc.d, tc.sql, p.Err)
		}
	}
}
