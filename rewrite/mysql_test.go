package rewrite

import (
	"testing"
)

func TestMySQLPerRow(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		perRow  bool // evaluated once per row: the planner refuses it
		parsing bool // sqlparser reads it
	}{
		{"UPDATE t SET a = NEXTVAL(s)", true, true},
		{"DELETE FROM t WHERE a = nextval('s')", true, true},
		{"INSERT INTO t SELECT NEXTVAL(s), a FROM u", true, true},
		{"INSERT INTO t VALUES (1), (2) ON DUPLICATE KEY UPDATE a = NEXTVAL(s)", true, true},
		{"SELECT a FROM t WHERE a > (SELECT NEXTVAL(s) FROM u)", true, true},
		{"SELECT NEXTVAL(s) FROM DUAL", false, true},
		{"SELECT NEXTVAL(s), 1", false, true},
		{"INSERT INTO t VALUES (NEXTVAL(s), ?), (NEXTVAL(s), ?)", false, true},
		{"INSERT INTO t VALUES (NEXTVAL(s)) ON DUPLICATE KEY UPDATE a = NEXTVAL(s)", false, true},
		{"SELECT NEXT VALUE FOR s FROM t", true, false},    // not its syntax: the lexer decides
		{"UPDATE t SET a = NEXTVAL(s) /*!*/", true, false}, // sqlparser panics: recovered
	} {
		if _, ok := mysqlParse(tc.sql); ok != tc.parsing {
			t.Errorf("%q: sqlparser reads it: %v", tc.sql, ok)
		}
		if got := mysqlPerRow(tc.sql) != ""; got != (tc.perRow && tc.parsing) {
			t.Errorf("mysqlPerRow(%q) = %v, want %v", tc.sql, got, tc.perRow)
		}
		// The planner reads it alike, and where the oracle cannot.
		if st := one(t, MySQL, tc.sql); (st.Kind == Reject) != tc.perRow {
			t.Errorf("%q plans to %v (%v), want per-row %v", tc.sql, st.Kind, st.Err, tc.perRow)
		}
	}
}

// TestMySQLOutputParses: what MySQL's parser reads before a rewrite, it
// reads after.
func TestMySQLOutputParses(t *testing.T) {
	for _, sql := range []string{
		"INSERT INTO t VALUES (NEXTVAL(s), ?)",
		"INSERT INTO t (id, a) VALUES (nextval('s'), ?), (nextval(`S`), 'x')",
		"INSERT INTO t SET id = NEXTVAL(s), a = ?",
		"SELECT ?, NEXTVAL(?), ?",
		"SELECT NEXTVAL(s), 1 FROM DUAL",
		"SELECT NEXTVAL(s) + 1, SETVAL(s, ?, 0) AS x, now()",
		"SET @x = NEXTVAL(s)",
	} {
		if _, ok := mysqlParse(sql); !ok {
			t.Fatalf("test input %q does not parse", sql)
		}
		st := one(t, MySQL, sql)
		if st.Kind != Rewrite {
			t.Fatalf("%q: Kind %v (err %v)", sql, st.Kind, st.Err)
		}
		out := string(st.AppendSQL(nil, make([]int64, len(st.Calls))))
		if _, ok := mysqlParse(out); !ok {
			t.Errorf("%q rewritten to %q does not parse", sql, out)
		}
	}
}
