package rewrite

import "testing"

// FuzzPathEffects checks, for any text: PathEffects does not panic; only
// the postgres dialect has effects; the cheap test MaySessionStatement
// never hides one; white space after the text changes nothing; and a
// statement that changes the path, or ends the transaction, before the
// text keeps its effect whatever follows it. The seed corpus is in
// testdata/fuzz/FuzzPathEffects.
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
		e := PathEffects(Postgres, sql)
		if e&^(ChangesPath|EndsTransaction|RollsBackToSavepoint) != 0 {
			t.Fatalf("PathEffects(%q) = %b", sql, e)
		}
		if PathEffects(MySQL, sql) != 0 || PathEffects(SQLite, sql) != 0 {
			t.Fatalf("PathEffects(%q) outside PostgreSQL", sql)
		}
		if e != 0 && !MaySessionStatement(Postgres, sql) {
			t.Fatalf("PathEffects(%q) = %b, yet MaySessionStatement is false", sql, e)
		}
		if got := PathEffects(Postgres, sql+" \n"); got != e {
			t.Fatalf("PathEffects(%q) = %b, with white space after it %b", sql, e, got)
		}
		for _, before := range []struct {
			sql string
			e   PathEffect
		}{{"SET search_path TO x;\n", ChangesPath}, {"COMMIT;\n", EndsTransaction}, {"ROLLBACK TO SAVEPOINT s;\n", RollsBackToSavepoint}} {
			if got := PathEffects(Postgres, before.sql+sql); got&before.e == 0 || got&e != e {
				t.Fatalf("PathEffects(%q) = %b, after %q %b", sql, e, before.sql, got)
			}
		}
	})
}
