package rewrite

import (
	"fmt"
	"strings"
	"testing"
)

func TestRegclassItems(t *testing.T) {
	for _, tc := range []struct {
		sql   string
		local bool
		cols  string // Columns, comma-separated
		calls string // each call: name|unqualified|arg|type
	}{
		{"SELECT 's'::regclass", true, "regclass", "s|true|-1|regclass"},
		{"select 'public.S'::REGCLASS::TEXT", true, "text", "s|false|-1|text"},
		{`SELECT '"My Seq"'::regclass::varchar AS "R", 'app.t'::regclass::name n`, true, `R,n`, `"My Seq"|true|-1|varchar app.t|false|-1|name`},
		{"SELECT $1::regclass, $2::regclass::text AS t", true, "regclass,t", "|false|0|regclass |false|1|text"},
		{"SELECT E's'::regclass", true, "regclass", "s|true|-1|regclass"},
		{"SELECT 's'::regclass;", true, "regclass", "s|true|-1|regclass"},
		// Left to the database: an OID, other types and expressions, a FROM.
		{"SELECT '123'::regclass", false, "", ""},
		{"SELECT '-'::regclass", false, "", ""},
		{"SELECT 's'::regclass::oid", false, "", ""},
		{"SELECT 's'::regclass::varchar(3)", false, "", ""},
		{"SELECT 's'::regclass::pg_catalog.text", false, "", ""},
		{"SELECT ('s'::regclass)", false, "", ""},
		{"SELECT 's'::regclass FROM t", false, "", ""},
		{"SELECT 's'::regclass = 't'::regclass", false, "", ""},
		{"SELECT 'a.b.c.d'::regclass", false, "", ""},
		{"SELECT 's'::regclass, 1", false, "", ""},
		{"SELECT to_regclass('s')", false, "", ""},
		{"SELECT nextval('s'), 's'::regclass", false, "", ""},
	} {
		pl := Build(Postgres, tc.sql)
		var st *Statement
		if len(pl.Statements) == 1 {
			st = &pl.Statements[0]
		}
		if local := st != nil && st.Kind == Local; local != tc.local {
			t.Errorf("%q: Local %v, want %v (%+v)", tc.sql, local, tc.local, pl.Statements)
			continue
		}
		if !tc.local {
			if st != nil && st.Kind == Local {
				t.Errorf("%q is Local", tc.sql)
			}
			continue
		}
		if !st.Fallback() {
			t.Errorf("%q: not Fallback", tc.sql)
		}
		var calls []string
		for _, c := range st.Calls {
			calls = append(calls, fmt.Sprintf("%s|%v|%d|%s", c.Name, c.Unqualified, c.NameArg, c.Type))
		}
		if got := strings.Join(st.Columns, ","); got != tc.cols {
			t.Errorf("%q: columns %s, want %s", tc.sql, got, tc.cols)
		}
		if got := strings.Join(calls, " "); got != tc.calls {
			t.Errorf("%q: calls %s, want %s", tc.sql, got, tc.calls)
		}
	}
	// Nextval's Local statements never fall back.
	if st := Build(Postgres, "SELECT nextval('s')").Statements[0]; st.Fallback() {
		t.Error("SELECT nextval('s') falls back")
	}
}

// TestRegclassFallback: a statement of regclass values is sent as it is
// unless it was served.
func TestRegclassFallback(t *testing.T) {
	pl := Build(Postgres, "SELECT 's'::regclass; SELECT nextval('s'); SELECT 1")
	if got, _ := pl.AppendSQLServed(nil, nil, false, 0); string(got) != "SELECT 's'::regclass; SELECT 1" {
		t.Errorf("not served: %q", got)
	}
	if got, _ := pl.AppendSQLServed(nil, nil, false, 1); string(got) != " SELECT 1" {
		t.Errorf("served: %q", got)
	}
}
