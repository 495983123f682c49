package rewrite

import "testing"

func TestPathEffects(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want PathEffect
	}{
		{"SET search_path TO tenant_7, public", ChangesPath},
		{"set local Search_Path = 'x'", ChangesPath},
		{"SET SESSION search_path TO DEFAULT", ChangesPath},
		{"SET SCHEMA 'app'", ChangesPath},
		{"RESET search_path", ChangesPath},
		{"RESET ALL", ChangesPath},
		{"SET ROLE app", ChangesPath},
		{"RESET ROLE", ChangesPath},
		{"SET SESSION AUTHORIZATION app", ChangesPath},
		{"SET LOCAL SESSION AUTHORIZATION DEFAULT", ChangesPath},
		{"DISCARD ALL", ChangesPath},
		{"SELECT set_config('search_path', 'x', false)", ChangesPath},
		{"SELECT pg_catalog.SET_CONFIG($1, $2, true)", ChangesPath},
		{"/* c */ -- d\n SET search_path TO x", ChangesPath},
		{"SELECT 1; SET search_path TO x", ChangesPath},
		{"COMMIT", EndsTransaction},
		{"end", EndsTransaction},
		{"ROLLBACK TO SAVEPOINT a", RollsBackToSavepoint},
		{"rollback work to a", RollsBackToSavepoint},
		{"ROLLBACK AND CHAIN", EndsTransaction},
		{"ABORT", EndsTransaction},
		{"PREPARE TRANSACTION 'x'", EndsTransaction},
		{"SET search_path TO x; COMMIT", ChangesPath | EndsTransaction},
		{"COMMIT PREPARED 'x'", 0},
		{"ROLLBACK PREPARED 'x'", 0},
		{"PREPARE q AS SELECT 1", 0},
		{"SET statement_timeout = 0", 0},
		{"CREATE SCHEMA t7", ChangesPath},
		{"drop schema t7 cascade", ChangesPath},
		{"ALTER SCHEMA t7 RENAME TO t8", ChangesPath},
		{"CREATE TABLE t (id bigint)", 0},
		{"RESET statement_timeout", 0},
		{"DISCARD SEQUENCES", 0},
		{"SELECT 'SET search_path TO x'", 0},
		{"SELECT set_config_x(1)", 0},
		{"SELECT 1 -- ; SET search_path TO x", 0},
		{"INSERT INTO t (created_at) VALUES (now())", 0},
		{"SELECT reset FROM settings", 0},
	} {
		if got := pathEffectsOf(Postgres, tc.sql); got != tc.want {
			t.Errorf("pathEffectsOf(%q) = %b, want %b", tc.sql, got, tc.want)
		}
	}
	if got := pathEffectsOf(MySQL, "SET search_path TO x"); got != 0 {
		t.Errorf("MySQL: %b, want 0", got)
	}
}

func TestUnqualified(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT nextval('s')":         true,
		"SELECT nextval('public.s')":  false,
		"SELECT nextval('t7.s')":      false,
		"SELECT currval('\"S\"')":     true,
		"SELECT setval('s', 5)":       true,
		"SELECT nextval($1)":          false, // resolved when the argument is read
		"SELECT NEXT VALUE FOR app.s": false,
		"SELECT NEXT VALUE FOR s":     true,
	} {
		st := one(t, Postgres, sql)
		if len(st.Calls) != 1 || st.Calls[0].Unqualified != want {
			t.Errorf("%s: calls %+v, want Unqualified %v", sql, st.Calls, want)
		}
	}
}
