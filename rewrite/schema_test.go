package rewrite

import (
	"fmt"
	"testing"
)

func TestSchemaDrops(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want string
		n    int
	}{
		{"DROP SCHEMA tenant_7", "[{Schemas:[tenant_7] IfExists:false Cascade:false Rename:false}]", 1},
		{"drop schema if exists A, \"B\" cascade;", "[{Schemas:[a B] IfExists:true Cascade:true Rename:false}]", 1},
		{"DROP SCHEMA t RESTRICT; SELECT 1", "[{Schemas:[t] IfExists:false Cascade:false Rename:false}]", 2},
		{"/* x */ DROP SCHEMA t CASCADE", "[{Schemas:[t] IfExists:false Cascade:true Rename:false}]", 1},
		{"DROP TABLE t", "[]", 1},
		{"ALTER SCHEMA T7 RENAME TO t9", "[{Schemas:[t7] IfExists:false Cascade:false Rename:true}]", 1},
		{"ALTER SCHEMA t7 OWNER TO x", "[]", 1},
		{"DROP SCHEMA", "[]", 1},
		{"SELECT 'DROP SCHEMA t'", "[]", 0},
	} {
		drops, n := schemaDropsOf(Postgres, tc.sql)
		if got := fmt.Sprintf("%+v", drops); (got != tc.want && !(tc.want == "[]" && drops == nil)) || n != tc.n {
			t.Errorf("SchemaDrops(%q) = %s, %d; want %s, %d", tc.sql, got, n, tc.want, tc.n)
		}
	}
}
