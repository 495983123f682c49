package rewrite

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPathEffects checks, for any text, the search_path effects its plan
// gives (Plan.Path): only the postgres dialect has effects; the cheap tests
// before the lexer never hide one; white space after the text changes
// nothing; and a statement that changes the path, or ends the
// transaction, before the text keeps its effect whatever follows it,
// unless the database refuses the whole string (then nothing of it runs).
// The seed corpus is in testdata/fuzz/FuzzPathEffects.
func FuzzPathEffects(f *testing.F) {
	for _, s := range []string{
		"SET search_path TO a, public", "set local schema 'x'", "RESET ALL; COMMIT", "SELECT set_config('search_path', 'a', false)",
		`SELECT "set_config"('search_path', 'a', true)`, "ROLLBACK TO SAVEPOINT s", "ROLLBACK WORK TO s", "PREPARE TRANSACTION 'x'",
		"COMMIT PREPARED 'x'", "DROP SCHEMA a CASCADE", "/* c */ SET SESSION AUTHORIZATION u", "SET ROLE r; END",
		"SELECT 1 -- set search_path\n", "SET search_path = (", "SELECT 'oops", "CREATE FUNCTION f() BEGIN ATOMIC SET x = 1; END",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		e := pathEffectsOf(Postgres, sql)
		if e&^(ChangesPath|EndsTransaction|RollsBackToSavepoint) != 0 {
			t.Fatalf("path effects of %q: %b", sql, e)
		}
		if pathEffectsOf(MySQL, sql) != 0 || pathEffectsOf(SQLite, sql) != 0 {
			t.Fatalf("path effects of %q outside PostgreSQL", sql)
		}
		if e != 0 && !mayPlan(Postgres, sql) {
			t.Fatalf("path effects of %q: %b, yet the cheap tests skip it", sql, e)
		}
		if got := pathEffectsOf(Postgres, sql+" \n"); got != e {
			t.Fatalf("path effects of %q: %b, with white space after it %b", sql, e, got)
		}
		for _, before := range []struct {
			sql string
			e   PathEffect
		}{{"SET search_path TO x;\n", ChangesPath}, {"COMMIT;\n", EndsTransaction}, {"ROLLBACK TO SAVEPOINT s;\n", RollsBackToSavepoint}} {
			text := before.sql + sql
			whole, l := build(Postgres, text), lex(Postgres, text)
			if whole.Err != nil || l.unreadable() || strings.IndexByte(text, 0) >= 0 || !utf8.ValidString(text) || visibleSyntaxError(l, split(l)) != nil {
				continue // refused whole: nothing of it runs
			}
			if got := whole.Path; got&before.e == 0 || got&e != e {
				t.Fatalf("path effects of %q: %b, after %q %b", sql, e, before.sql, got)
			}
		}
	})
}
