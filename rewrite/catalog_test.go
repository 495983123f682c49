package rewrite

import (
	"reflect"
	"testing"
)

func TestCatalogWord(t *testing.T) {
	tests := []struct {
		sql  string
		want bool
	}{
		{"ALTER TABLE t RENAME TO u", true},
		{"  drop table t", true},
		{"-- migration\n/* two */ Comment ON TABLE t IS 'x'", true},
		{"(grant select on t to public)", true},
		{"SELECT 1; REVOKE ALL ON t FROM PUBLIC", true},
		{"SELECT 1;\n\tDROP VIEW v", true},
		{"DROP", true},
		{"CREATE TABLE t (id serial)", true},
		{"-- +goose Up\n create unlogged table t (id bigint generated always as identity)", true},
		{"SELECT 1; CREATE TABLE t (id bigserial)", true},
		{"created_at", false},
		{"INSERT INTO t (created_at) VALUES ('create table')", false},
		{"SELECT 'x; drop table t'", true}, // a ';' in a literal: planned, passes through
		{"SELECT * FROM altered", false},
		{"dropped_rows", false},
		{"droP_x", false},
		{"INSERT INTO t VALUES ('alter')", false},
		{"SELECT 1 -- ; no newline, alter", false},
		{"/* unterminated drop", false},
		{"UPDATE t SET a = 1 WHERE b = 'drop'", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := catalogWord(tt.sql); got != tt.want {
			t.Errorf("catalogWord(%q) = %v, want %v", tt.sql, got, tt.want)
		}
	}
}

func TestCatalogStatements(t *testing.T) {
	tests := []struct {
		sql  string
		want *Catalog // nil: pass-through plan
	}{
		{"DROP TABLE t", &Catalog{Op: DropsOwners}},
		{"DROP TABLE IF EXISTS a, b CASCADE", &Catalog{Op: DropsOwners}},
		{"drop materialized view m", &Catalog{Op: DropsOwners}},
		{"DROP FOREIGN TABLE f", &Catalog{Op: DropsOwners}},
		{"DROP SCHEMA app CASCADE", &Catalog{Op: DropsOwners}},
		{"DROP OWNED BY bob", &Catalog{Op: DropsOwners}},
		{"ALTER TABLE t DROP COLUMN c", &Catalog{Op: DropsOwners}},
		{"ALTER TABLE ONLY t DROP CONSTRAINT k", &Catalog{Op: DropsOwners}},
		{"DROP INDEX i", nil},
		{"DROP FUNCTION f()", nil},
		{"ALTER TABLE t ADD COLUMN c int", nil},
		{"ALTER INDEX i RENAME TO j", nil},
		{"ALTER TABLE s RENAME TO s2", &Catalog{Op: AlterTable, Action: "RENAME TO", Names: []string{"s"}, Unqualified: true, RenameTo: "s2"}},
		{`ALTER TABLE IF EXISTS app."S" RENAME TO "T"`, &Catalog{Op: AlterTable, IfExists: true, Action: "RENAME TO", Names: []string{`app."S"`}, RenameTo: `app."T"`}},
		{"ALTER TABLE s OWNER TO bob", &Catalog{Op: AlterTable, Action: "OWNER TO", Names: []string{"s"}, Unqualified: true}},
		{"alter table public.s set schema app", &Catalog{Op: AlterTable, Action: "SET SCHEMA", Names: []string{"s"}, RenameTo: "app.s"}},
		{`ALTER TABLE IF EXISTS ONLY "S" SET SCHEMA "App"`, &Catalog{Op: AlterTable, IfExists: true, Action: "SET SCHEMA", Names: []string{`"S"`}, Unqualified: true, RenameTo: `"App"."S"`}},
		{"ALTER TABLE app.s SET SCHEMA public", &Catalog{Op: AlterTable, Action: "SET SCHEMA", Names: []string{"app.s"}, RenameTo: "s"}},
		{"ALTER TABLE s SET LOGGED", &Catalog{Op: AlterTable, Action: "SET LOGGED", Names: []string{"s"}, Unqualified: true}},
		{"alter table if exists app.s set unlogged", &Catalog{Op: AlterTable, IfExists: true, Action: "SET UNLOGGED", Names: []string{"app.s"}}},
		// Malformed or several subcommands: the database's to answer.
		{"ALTER TABLE s SET SCHEMA a, b", nil},
		{"ALTER TABLE s SET SCHEMA a.b", nil},
		{"ALTER TABLE s SET SCHEMA", nil},
		{"ALTER TABLE s SET LOGGED, SET UNLOGGED", nil},
		{"ALTER TABLE s SET LOGGED CASCADE", nil},
		{"ALTER TABLE t RENAME COLUMN a TO b", &Catalog{Op: ColumnDefaults}}, // the column may have a store default
		{"ALTER TABLE t ALTER a SET NOT NULL", nil},
		{"CREATE TABLE t (id bigint)", nil},
		{"COMMENT ON SEQUENCE s IS 'x'", &Catalog{Op: OnSequence, Action: "COMMENT", Names: []string{"s"}}},
		{"COMMENT ON TABLE t IS 'sequence'", nil},
		{"GRANT USAGE, SELECT ON SEQUENCE a, app.b TO bob", &Catalog{Op: OnSequence, Action: "GRANT", Names: []string{"a", "app.b"}}},
		{"REVOKE ALL ON SEQUENCE s FROM PUBLIC", &Catalog{Op: OnSequence, Action: "REVOKE", Names: []string{"s"}}},
		{"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO bob", nil},
		{"GRANT SELECT ON t TO bob", nil},
		{"GRANT reader TO bob", nil},
	}
	for _, tt := range tests {
		p := Build(Postgres, tt.sql)
		if tt.want == nil {
			if !p.PassThrough() {
				t.Errorf("%s: %+v, want a pass-through plan", tt.sql, p.Statements)
			}
			continue
		}
		if len(p.Statements) != 1 || p.Statements[0].Kind != CatalogDDL || !reflect.DeepEqual(p.Statements[0].Catalog, tt.want) {
			t.Errorf("%s: %+v, want CatalogDDL %+v", tt.sql, p.Statements, tt.want)
			continue
		}
		// Sent as written unless served.
		if got, _ := p.AppendSQL(nil, nil, false); string(got) != tt.sql {
			t.Errorf("%s: AppendSQL %q", tt.sql, got)
		}
		if got, _ := p.AppendSQLServed(nil, nil, false, 1); len(got) != 0 {
			t.Errorf("%s: served, AppendSQLServed %q", tt.sql, got)
		}
	}
	// Other dialects have no such statements.
	if p := Build(MySQL, "DROP TABLE t"); !p.PassThrough() {
		t.Errorf("MySQL DROP TABLE: %+v", p.Statements)
	}
}
