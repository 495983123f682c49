package rewrite

import (
	"reflect"
	"testing"
)

// TestParseView reads definitions as PostgreSQL 15's pg_get_viewdef prints
// them (recorded), and refuses views it does not update automatically.
func TestParseView(t *testing.T) {
	for _, tc := range []struct {
		def  string
		want View
		ok   bool
	}{
		{" SELECT t.id AS a,\n    t.v\n   FROM t;", View{Base: "t", Columns: []ViewColumn{{"a", "id"}, {"v", "v"}}}, true},
		{" SELECT v.v,\n    v.a\n   FROM v\n  WHERE (v.a > 0);", View{Base: "v", Columns: []ViewColumn{{"v", "v"}, {"a", "a"}}}, true},
		{" SELECT (t.id + 0) AS a,\n    t.v\n   FROM t;", View{Base: "t", Columns: []ViewColumn{{"a", ""}, {"v", "v"}}}, true},
		{" SELECT t2.id,\n    t2.v\n   FROM t t2\n  WHERE (t2.v IS NOT NULL);", View{Base: "t", Columns: []ViewColumn{{"id", "id"}, {"v", "v"}}}, true},
		{" SELECT \"T x\".\"Val\" AS \"My Val\",\n    \"T x\".id\n   FROM s2.\"T x\";", View{Base: `s2."T x"`, Columns: []ViewColumn{{"My Val", "Val"}, {"id", "id"}}}, true},
		{" SELECT t.id,\n    t.v\n   FROM ONLY t;", View{Base: "t", Columns: []ViewColumn{{"id", "id"}, {"v", "v"}}}, true},
		{" SELECT t.id,\n    t.v,\n    'k'::text AS k,\n    t.id AS id2\n   FROM t;", View{Base: "t", Columns: []ViewColumn{{"id", "id"}, {"v", "v"}, {"k", ""}, {"id2", "id"}}}, true},
		{" SELECT f(t.a, t.b) AS c\n   FROM t;", View{Base: "t", Columns: []ViewColumn{{"c", ""}}}, true},
		{" SELECT t.id,\n    ti.v\n   FROM t,\n    ti;", View{}, false},
		{" SELECT DISTINCT t.id,\n    t.v\n   FROM t;", View{}, false},
		{" SELECT t.id\n   FROM t\n  GROUP BY t.id;", View{}, false},
		{" SELECT t.id\n   FROM t\n  LIMIT 1;", View{}, false},
		{" SELECT t.id,\n    t.v\n   FROM t\n  ORDER BY t.v;", View{Base: "t", Columns: []ViewColumn{{"id", "id"}, {"v", "v"}}}, true},
		{" SELECT t.id AS x,\n    t.v AS y\n   FROM t;", View{Base: "t", Columns: []ViewColumn{{"x", "id"}, {"y", "v"}}}, true},
		{" SELECT (t.id)::integer AS id,\n    t.v\n   FROM t;", View{Base: "t", Columns: []ViewColumn{{"id", ""}, {"v", "v"}}}, true},
		{" SELECT t.id\n   FROM t\n     JOIN u ON u.id = t.id;", View{}, false},
		{" SELECT x.id\n   FROM ( SELECT t.id\n           FROM t) x;", View{}, false},
		{" SELECT t.id\n   FROM t\nUNION\n SELECT u.id\n   FROM u;", View{}, false},
		{" SELECT 1 AS one;", View{}, false},
		{`SELECT "" FROM t`, View{}, false},
		{`SELECT a AS "" FROM t`, View{}, false},
		{"", View{}, false},
	} {
		got, ok := ParseView(tc.def)
		if ok != tc.ok || ok && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseView(%q) = %+v, %v; want %+v, %v", tc.def, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseView checks, for any text, that ParseView does not panic and
// that a view it reads has a base relation and named columns.
func FuzzParseView(f *testing.F) {
	for _, s := range []string{
		" SELECT t.id AS a,\n    t.v\n   FROM t;",
		" SELECT \"T x\".\"Val\" AS \"My Val\",\n    \"T x\".id\n   FROM s2.\"T x\";",
		" SELECT (t.id + 0) AS a FROM ONLY t t2 WHERE (t2.v IS NOT NULL);",
		" SELECT x.id FROM ( SELECT t.id FROM t) x;", "SELECT", "SELECT a FROM", "",
		`SELECT "" FROM t`, `SELECT a AS "" FROM t`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, def string) {
		v, ok := ParseView(def)
		if !ok {
			return
		}
		if v.Base == "" || len(v.Columns) == 0 {
			t.Fatalf("ParseView(%q) = %+v: no base or no columns", def, v)
		}
		for _, c := range v.Columns {
			if c.Name == "" {
				t.Fatalf("ParseView(%q) = %+v: a column without a name", def, v)
			}
		}
	})
}
