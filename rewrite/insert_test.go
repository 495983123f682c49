package rewrite

import (
	"errors"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// injectTables is a schema for the injection tests: sr(a, id serial, b),
// ia(id identity always, v), ib(id identity by default, v), t7.orders(id
// serial, note), plain(x) without store defaults.
func injectTables(table string, unqualified, columns bool) (*TableDefaults, error) {
	if unqualified && table == "orders" {
		table = "t7.orders" // as a search_path t7, public would resolve it
	}
	switch table {
	case "sr":
		return &TableDefaults{Table: "sr", Defaults: []ColumnSequence{{Column: "id", Sequence: "sr_id_seq"}}, Columns: []string{"a", "id", "b"}}, nil
	case "ia":
		return &TableDefaults{Table: "ia", Defaults: []ColumnSequence{{Column: "id", Sequence: "ia_id_seq", Kind: sequence.IdentityAlways}}, Columns: []string{"id", "v"}}, nil
	case "ib":
		return &TableDefaults{Table: "ib", Defaults: []ColumnSequence{{Column: "id", Sequence: "ib_id_seq", Kind: sequence.IdentityByDefault}}, Columns: []string{"id", "v"}}, nil
	case "t7.orders":
		return &TableDefaults{Table: "t7.orders", Defaults: []ColumnSequence{{Column: "id", Sequence: "t7.orders_id_seq"}}, Columns: []string{"id", "note"}}, nil
	case `"Mixed"`:
		return &TableDefaults{Table: `"Mixed"`, Defaults: []ColumnSequence{{Column: "ID", Sequence: `"Mixed_ID_seq"`}}, Columns: []string{"ID", "v"}}, nil
	}
	return nil, nil
}

func TestInjectDefaults(t *testing.T) {
	const sr, ia, ib = "nextval('public.sr_id_seq')", "nextval('public.ia_id_seq')", "nextval('public.ib_id_seq')"
	for _, tc := range []struct{ in, want string }{
		{"INSERT INTO sr (a) VALUES ('x')", "INSERT INTO sr (a, id) VALUES ('x', " + sr + ")"},
		{"insert into sr (a, b) values ($1, $2), ($3, $4) returning id", "insert into sr (a, b, id) values ($1, $2, " + sr + "), ($3, $4, " + sr + ") returning id"},
		{"INSERT INTO sr (a, id) VALUES ('x', DEFAULT), ('y', 5)", "INSERT INTO sr (a, id) VALUES ('x', " + sr + "), ('y', 5)"},
		{"INSERT INTO sr VALUES ('x')", "INSERT INTO sr (a, id) VALUES ('x', " + sr + ")"},
		{"INSERT INTO sr VALUES ('x', DEFAULT, DEFAULT)", "INSERT INTO sr VALUES ('x', " + sr + ", DEFAULT)"},
		{"INSERT INTO sr VALUES ('x', 3, 'c'), ('y', DEFAULT, DEFAULT)", "INSERT INTO sr VALUES ('x', 3, 'c'), ('y', " + sr + ", DEFAULT)"},
		{"INSERT INTO sr DEFAULT VALUES RETURNING *", "INSERT INTO sr (id) VALUES (" + sr + ") RETURNING *"},
		{"INSERT INTO sr AS s (a) VALUES ('x') RETURNING s.id", "INSERT INTO sr AS s (a, id) VALUES ('x', " + sr + ") RETURNING s.id"},
		{"INSERT INTO public.sr (a) VALUES ('x') ON CONFLICT DO NOTHING", "INSERT INTO public.sr (a, id) VALUES ('x', " + sr + ") ON CONFLICT DO NOTHING"},
		{"WITH w AS (INSERT INTO sr (a) VALUES ('w') RETURNING id) SELECT id FROM w", "WITH w AS (INSERT INTO sr (a, id) VALUES ('w', " + sr + ") RETURNING id) SELECT id FROM w"},
		{"INSERT INTO ia (v) VALUES ('x')", "INSERT INTO ia (v, id) OVERRIDING SYSTEM VALUE VALUES ('x', " + ia + ")"},
		{"INSERT INTO ia DEFAULT VALUES", "INSERT INTO ia (id) OVERRIDING SYSTEM VALUE VALUES (" + ia + ")"},
		{"INSERT INTO ia OVERRIDING SYSTEM VALUE VALUES (9, 'z')", "INSERT INTO ia OVERRIDING SYSTEM VALUE VALUES (9, 'z')"},
		{"INSERT INTO ia OVERRIDING USER VALUE VALUES (9, 'z')", "INSERT INTO ia OVERRIDING SYSTEM VALUE VALUES (" + ia + ", 'z')"},
		{"INSERT INTO ib VALUES (5, 'x')", "INSERT INTO ib VALUES (5, 'x')"},
		{"INSERT INTO ib OVERRIDING USER VALUE VALUES (5 + 1, 'x')", "INSERT INTO ib OVERRIDING SYSTEM VALUE VALUES (" + ib + ", 'x')"},
		{"INSERT INTO orders (note) VALUES ('n')", "INSERT INTO orders (note, id) VALUES ('n', nextval('t7.orders_id_seq'))"},
		{`INSERT INTO "Mixed" (v) VALUES (1)`, `INSERT INTO "Mixed" (v, "ID") VALUES (1, nextval('public."Mixed_ID_seq"'))`},
		{"INSERT INTO plain (x) VALUES (1)", "INSERT INTO plain (x) VALUES (1)"},
		{"INSERT INTO sr (a) SELECT 'q' FROM x; INSERT INTO plain VALUES (1)", ""},
		{"INSERT INTO sr (a) SELECT 'q'", "INSERT INTO sr (a, id) SELECT 'q', " + sr},
		{"INSERT INTO sr (a, b) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM sr WHERE a = $1) RETURNING id",
			"INSERT INTO sr (a, b, id) SELECT $1, $2, " + sr + " WHERE NOT EXISTS (SELECT 1 FROM sr WHERE a = $1) RETURNING id"},
		{"INSERT INTO sr (a) SELECT $1::text ON CONFLICT DO NOTHING", "INSERT INTO sr (a, id) SELECT $1::text, " + sr + " ON CONFLICT DO NOTHING"},
		{"INSERT INTO ia (v) SELECT 'x' WHERE $1", "INSERT INTO ia (v, id) OVERRIDING SYSTEM VALUE SELECT 'x', " + ia + " WHERE $1"},
		{"WITH w AS (INSERT INTO sr (a) SELECT 'w' RETURNING id) SELECT id FROM w", "WITH w AS (INSERT INTO sr (a, id) SELECT 'w', " + sr + " RETURNING id) SELECT id FROM w"},
		{"INSERT INTO sr (a, id) SELECT a, id FROM x", "INSERT INTO sr (a, id) SELECT a, id FROM x"},
		{"SELECT 1; INSERT INTO sr (a) VALUES (1); INSERT INTO sr (b) VALUES (2)", "SELECT 1; INSERT INTO sr (a, id) VALUES (1, " + sr + "); INSERT INTO sr (b, id) VALUES (2, " + sr + ")"},
		{"INSERT INTO sr (a) VALUES ('x', 'y')", "INSERT INTO sr (a) VALUES ('x', 'y')"}, // the database's error
		{"UPDATE sr SET a = 'x' WHERE id = 1", "UPDATE sr SET a = 'x' WHERE id = 1"},
		{"COPY sr FROM STDIN", "COPY sr FROM STDIN"},
		{"COPY sr (a, id) FROM STDIN", "COPY sr (a, id) FROM STDIN"},
		{"INSERT INTO sr (a) VALUES ('it''s -- not a comment')", "INSERT INTO sr (a, id) VALUES ('it''s -- not a comment', " + sr + ")"},
		// The database's syntax errors: nothing injected, which would draw.
		{"INSERT INTO sr VALUES ()", "INSERT INTO sr VALUES ()"},
		{"INSERT INTO sr () VALUES ()", "INSERT INTO sr () VALUES ()"},
		{"INSERT INTO sr (a) VALUES ('x', )", "INSERT INTO sr (a) VALUES ('x', )"},
		{"INSERT INTO sr (a) VALUES ('x'), ()", "INSERT INTO sr (a) VALUES ('x'), ()"},
		{"INSERT INTO \"\x00\" VALUES (1)", "INSERT INTO \"\x00\" VALUES (1)"},
	} {
		got, changed, err := InjectDefaults(Postgres, tc.in, injectTables)
		if tc.want == "" {
			if !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v, want 0A000", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want || changed != (got != tc.in) {
			t.Errorf("%s:\n got %s (%v, %v)\nwant %s", tc.in, got, changed, err, tc.want)
		}
	}
}

func TestInjectDefaultsErrors(t *testing.T) {
	for _, tc := range []struct{ in, code, msg string }{
		{"INSERT INTO ia (id, v) VALUES (5, 'x')", "428C9", `cannot insert a non-DEFAULT value into column "id"`},
		{"INSERT INTO ia VALUES (5, 'x')", "428C9", `cannot insert a non-DEFAULT value into column "id"`},
		{"INSERT INTO ia (id, v) VALUES (DEFAULT, 'x'), (7, 'y')", "428C9", `cannot insert a non-DEFAULT value into column "id"`},
		{"INSERT INTO ia (id, v) SELECT 10, 'q'", "428C9", `cannot insert a non-DEFAULT value into column "id"`},
		{"UPDATE ia SET id = 100 WHERE v = 'q'", "428C9", `column "id" can only be updated to DEFAULT`},
		{"INSERT INTO sr SELECT 'q'", "0A000", "INSERT … SELECT into sr leaves column id"},
		{"INSERT INTO sr (a) SELECT 'q' FROM x", "0A000", "INSERT … SELECT into sr leaves column id"},
		{"INSERT INTO sr (a) SELECT 'q' UNION SELECT 'r'", "0A000", "INSERT … SELECT into sr leaves column id"},
		{"INSERT INTO sr (a) SELECT 'q' WHERE true UNION ALL SELECT 'r'", "0A000", "INSERT … SELECT into sr leaves column id"},
		{"INSERT INTO sr (a) SELECT generate_series(1, 3)::text", "0A000", "INSERT … SELECT into sr leaves column id"},
		{"INSERT INTO ia (id, v) SELECT 10, 'q' FROM x", "428C9", `cannot insert a non-DEFAULT value into column "id"`},
		{"INSERT INTO sr (a) (VALUES ('x'))", "0A000", "INSERT … SELECT"},
		{"UPDATE sr SET id = DEFAULT, a = 'x'", "0A000", "UPDATE … SET id = DEFAULT"},
		{"UPDATE sr AS s SET id = DEFAULT", "0A000", "UPDATE … SET id = DEFAULT"},
		{"COPY sr (a) FROM STDIN", "0A000", "COPY sr FROM leaves column id"},
		{"INSERT INTO ib OVERRIDING USER VALUE VALUES ($1, 'x')", "0A000", "OVERRIDING USER VALUE"},
	} {
		_, _, err := InjectDefaults(Postgres, tc.in, injectTables)
		var se *sequence.Error
		if !errors.As(err, &se) || se.Code != tc.code || !strings.Contains(se.Message, tc.msg) {
			t.Errorf("%s: %v, want %s %q", tc.in, err, tc.code, tc.msg)
		}
	}
	_, _, err := InjectDefaults(Postgres, "INSERT INTO ia VALUES (5, 'x')", injectTables)
	var se *sequence.Error
	if errors.As(err, &se) && (se.Detail != `Column "id" is an identity column defined as GENERATED ALWAYS.` || se.Hint != "Use OVERRIDING SYSTEM VALUE to override.") {
		t.Errorf("428C9's detail and hint: %q, %q", se.Detail, se.Hint)
	}
}

// TestInjectDefaultsNone: a table the lookup returns without defaults
// has nothing injected (found by FuzzInjectDefaults: DEFAULT VALUES became
// () VALUES ()).
func TestInjectDefaultsNone(t *testing.T) {
	none := func(table string, _, _ bool) (*TableDefaults, error) { return &TableDefaults{Table: table}, nil }
	for _, in := range []string{"INSERT INTO a DEFAULT VALUES", "INSERT INTO a VALUES (1)", "INSERT INTO a (x) SELECT 1"} {
		if got, changed, err := InjectDefaults(Postgres, in, none); got != in || changed || err != nil {
			t.Errorf("%s: %q, %v, %v", in, got, changed, err)
		}
	}
}

func TestMayInject(t *testing.T) {
	for in, want := range map[string]bool{
		"INSERT INTO t VALUES (1)": true, "  with x as (select 1) select": true, "update t set a = 1": true,
		"COPY t FROM STDIN": true, "SELECT 1": false, "SELECT 1; insert into t values (1)": true, "DELETE FROM t": false,
	} {
		if got := mayInjectOf(Postgres, in); got != want {
			t.Errorf("mayInjectOf(%q) = %v", in, got)
		}
	}
}

func TestInjectedPlan(t *testing.T) {
	// The injected text is planned like any written nextval: one value
	// per row, bound as parameters when the statement has some.
	out, _, err := InjectDefaults(Postgres, "INSERT INTO sr (a) VALUES ($1), ($2) RETURNING id", injectTables)
	if err != nil {
		t.Fatal(err)
	}
	p := Build(Postgres, out)
	if p.Err != nil || len(p.Statements) != 1 || p.Statements[0].Kind != Rewrite || len(p.Statements[0].Calls) != 2 {
		t.Fatalf("plan of %s: %+v", out, p)
	}
	if sql, bound := p.AppendSQL(nil, []int64{7, 8}, false); !bound || string(sql) != "INSERT INTO sr (a, id) VALUES ($1, ($3::int8)), ($2, ($4::int8)) RETURNING id" {
		t.Fatalf("rendered %s (bound %v)", sql, bound)
	}
}

// TestInjectMerge: a MERGE's actions are checked against the target's
// store defaults: what PostgreSQL would draw per row is refused (0A000),
// a value for a GENERATED ALWAYS column is 428C9, the rest goes as written.
func TestInjectMerge(t *testing.T) {
	lookup := func(table string, _, _ bool) (*TableDefaults, error) {
		switch table {
		case "ma":
			return &TableDefaults{Table: "ma", Columns: []string{"a", "b"}, Defaults: []ColumnSequence{{Column: "a", Sequence: "ma_a_seq", Kind: sequence.IdentityAlways}}}, nil
		case "mb":
			return &TableDefaults{Table: "mb", Columns: []string{"a", "b"}, Defaults: []ColumnSequence{{Column: "a", Sequence: "mb_a_seq", Kind: sequence.IdentityByDefault}}}, nil
		case "ms":
			return &TableDefaults{Table: "ms", Columns: []string{"id", "b"}, Defaults: []ColumnSequence{{Column: "id", Sequence: "ms_id_seq"}}}, nil
		}
		return nil, nil
	}
	const using = " t USING src s ON t.a = s.x WHEN NOT MATCHED THEN "
	for _, tc := range []struct{ sql, code string }{
		{"MERGE INTO ma" + using + "INSERT (a, b) VALUES (s.x, s.y)", "428C9"},
		{"MERGE INTO ma" + using + "INSERT VALUES (s.x, s.y)", "428C9"},
		{"MERGE INTO ma" + using + "INSERT (a, b) OVERRIDING SYSTEM VALUE VALUES (s.x, s.y)", ""},
		{"MERGE INTO ma" + using + "INSERT (a, b) OVERRIDING USER VALUE VALUES (s.x, s.y)", "0A000"},
		{"MERGE INTO ma" + using + "INSERT (b) VALUES (s.y)", "0A000"},
		{"MERGE INTO ma" + using + "INSERT DEFAULT VALUES", "0A000"},
		{"MERGE INTO ma" + using + "INSERT (a, b) VALUES (DEFAULT, s.y)", "0A000"},
		{"MERGE INTO mb" + using + "INSERT (a, b) VALUES (s.x, s.y)", ""},
		{"MERGE INTO mb" + using + "INSERT (a, b) OVERRIDING USER VALUE VALUES (s.x, s.y)", "0A000"},
		{"MERGE INTO ms" + using + "INSERT (id, b) VALUES (s.x, s.y)", ""},
		{"MERGE INTO ms" + using + "INSERT (b) VALUES (s.y)", "0A000"},
		{"MERGE INTO ms" + using + "DO NOTHING", ""},
		{"MERGE INTO ms t USING src s ON t.id = s.x WHEN MATCHED THEN UPDATE SET id = DEFAULT", "0A000"},
		{"MERGE INTO ms t USING src s ON t.id = s.x WHEN MATCHED THEN UPDATE SET b = s.y, id = s.x WHEN NOT MATCHED THEN INSERT (id, b) VALUES (s.x, s.y)", ""},
		{"MERGE INTO ma t USING src s ON t.a = s.x WHEN MATCHED AND s.y > 0 THEN UPDATE SET a = s.x", "428C9"},
		{"MERGE INTO ma t USING src s ON t.a = s.x WHEN MATCHED THEN UPDATE SET b = s.y WHEN MATCHED THEN DELETE", ""},
		{"MERGE INTO other" + using + "INSERT (b) VALUES (s.y)", ""},
		{"WITH src AS (SELECT 1 AS x) MERGE INTO ms" + using + "INSERT (b) VALUES (s.y)", "0A000"},
	} {
		got, _, err := InjectDefaults(Postgres, tc.sql, lookup)
		code := errCode(err)
		if code != tc.code || err == nil && got != tc.sql {
			t.Errorf("%s: %q, %v; want code %q and the text unchanged", tc.sql, got, err, tc.code)
		}
	}
}

// TestInjectMergeOneRow: from a source of one row, a MERGE's INSERT action
// gets the store defaults written out as INSERT … VALUES does.
func TestInjectMergeOneRow(t *testing.T) {
	lookup := func(table string, _, _ bool) (*TableDefaults, error) {
		switch table {
		case "ma":
			return &TableDefaults{Table: "ma", Columns: []string{"a", "b"}, Defaults: []ColumnSequence{{Column: "a", Sequence: "ma_a_seq", Kind: sequence.IdentityAlways}}}, nil
		case "ms":
			return &TableDefaults{Table: "ms", Columns: []string{"id", "k", "v"}, Defaults: []ColumnSequence{{Column: "id", Sequence: "ms_id_seq"}}}, nil
		}
		return nil, nil
	}
	for _, tc := range []struct{ sql, want, code string }{
		{"MERGE INTO ms t USING (VALUES ($1, $2)) s(k, v) ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)",
			"MERGE INTO ms t USING (VALUES ($1, $2)) s(k, v) ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT (k, v, id) VALUES (s.k, s.v, nextval('public.ms_id_seq'))", ""},
		{"MERGE INTO ms t USING (SELECT $1 AS k) s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)",
			"MERGE INTO ms t USING (SELECT $1 AS k) s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k, id) VALUES (s.k, nextval('public.ms_id_seq'))", ""},
		{"MERGE INTO ms t USING (SELECT 'x'::text AS k WHERE $1) s ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (DEFAULT, s.k)",
			"MERGE INTO ms t USING (SELECT 'x'::text AS k WHERE $1) s ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (nextval('public.ms_id_seq'), s.k)", ""},
		{"MERGE INTO ms t USING (VALUES (1)) s(k) ON t.k = s.k WHEN NOT MATCHED THEN INSERT DEFAULT VALUES",
			"MERGE INTO ms t USING (VALUES (1)) s(k) ON t.k = s.k WHEN NOT MATCHED THEN INSERT (id) VALUES (nextval('public.ms_id_seq'))", ""},
		{"MERGE INTO ma t USING (VALUES (1, 'b')) s(x, y) ON t.a = s.x WHEN NOT MATCHED THEN INSERT (b) VALUES (s.y)",
			"MERGE INTO ma t USING (VALUES (1, 'b')) s(x, y) ON t.a = s.x WHEN NOT MATCHED THEN INSERT (b, a) OVERRIDING SYSTEM VALUE VALUES (s.y, nextval('public.ma_a_seq'))", ""},
		{"MERGE INTO ma t USING (VALUES (1, 'b')) s(x, y) ON t.a = s.x WHEN NOT MATCHED THEN INSERT (a, b) VALUES (s.x, s.y)", "", "428C9"},
		{"MERGE INTO ms t USING (VALUES (1), (2)) s(k) ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)", "", "0A000"},
		{"MERGE INTO ms t USING (SELECT generate_series(1, 2) AS k) s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)", "", "0A000"},
		{"MERGE INTO ms t USING (SELECT k FROM src) s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)", "", "0A000"},
		{"MERGE INTO ms t USING src s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)", "", "0A000"},
		{"MERGE INTO ms t USING (VALUES (1)) s(k) ON t.k = s.k WHEN MATCHED THEN UPDATE SET id = DEFAULT", "", "0A000"},
	} {
		got, _, err := InjectDefaults(Postgres, tc.sql, lookup)
		code := errCode(err)
		if code != tc.code || tc.code == "" && got != tc.want {
			t.Errorf("%s:\n got %q, %v\nwant %q, code %q", tc.sql, got, err, tc.want, tc.code)
		}
	}
}

// errCode is err's SQLSTATE when it is a *sequence.Error, its text for any
// other error, "" for none.
func errCode(err error) string {
	if se := (*sequence.Error)(nil); errors.As(err, &se) {
		return se.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}
