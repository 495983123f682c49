package main

import (
	"context"
	"strings"
	"testing"
)

func TestImport(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		conn, pgURL, sch := pgSchema(t)
		pgExec(t, conn,
			"CREATE SEQUENCE "+sch+".a MAXVALUE 1000000",
			"SELECT setval('"+sch+".a', 100)",
			"CREATE SEQUENCE "+sch+".b INCREMENT -1",
			"SELECT nextval('"+sch+".b') FROM generate_series(1, 3)",
			"CREATE SEQUENCE "+sch+".c AS integer START 7 CACHE 20",
			"CREATE SEQUENCE "+sch+`."Mixed" INCREMENT 5`,
			"SELECT setval('"+sch+`."Mixed"', 50, false)`,
			"CREATE SEQUENCE "+sch+".full MAXVALUE 20",
			"SELECT setval('"+sch+".full', 15)",
		)
		imp := []string{"import", "--from", pgURL, "--schema", sch, "--sample", "0", "--margin", "10"}

		// full has no room for the margin: nothing is imported.
		r := ts.fails(exitFailed, imp...)
		if !strings.Contains(r.stdout, sch+`."full"`) || !strings.Contains(r.stdout, "no room for a margin of 10 values before MAXVALUE (20)") {
			t.Errorf("import with a full sequence:\n%s\n%s", r.stdout, r.stderr)
		}
		if out := ts.ok("list", "-o", "json"); strings.TrimSpace(out) != "[]" {
			t.Fatalf("a failed import created counters: %s", out)
		}

		names := []string{sch + ".a", sch + ".b", sch + ".c", sch + `."Mixed"`}
		out := ts.ok(append(append(imp, "--dry-run"), names...)...)
		if !strings.Contains(out, "dry run: nothing created") || strings.Count(out, " create\n") != 4 {
			t.Errorf("import --dry-run:\n%s", out)
		}
		if out := ts.ok("list", "-o", "json"); strings.TrimSpace(out) != "[]" {
			t.Fatalf("a dry run created counters: %s", out)
		}

		var plan []importItem
		decode(t, ts.ok(append(append(imp, "-o", "json"), names...)...), &plan)
		wantFirst := map[string]int64{sch + ".a": 111, sch + ".b": -14, sch + ".c": 17, sch + `."Mixed"`: 100}
		for _, it := range plan {
			if it.Action != "created" || it.StoreFirst == nil || *it.StoreFirst != wantFirst[it.Name] || it.Margin != 10 {
				t.Errorf("import plan item %+v, want created with first value %d", it, wantFirst[it.Name])
			}
		}
		if len(plan) != 4 {
			t.Fatalf("import of 4 sequences: %+v", plan)
		}
		for name, first := range wantFirst {
			c := ts.describe(name)
			if c.NextValue == nil || *c.NextValue != first || c.StartValue != first {
				t.Errorf("%s: next %v, start %d; want both %d", name, c.NextValue, c.StartValue, first)
			}
		}
		if c := ts.describe(sch + ".c"); c.DataType != "integer" || c.CacheSize != 20 || c.MaxValue != 2147483647 {
			t.Errorf("c lost its spec: %+v", c)
		}
		if c := ts.describe(sch + `."Mixed"`); c.IncrementBy != 5 {
			t.Errorf("Mixed lost its spec: %+v", c)
		}
		if c := ts.describe(sch + ".b"); c.IncrementBy != -1 || c.MaxValue != -1 {
			t.Errorf("b lost its spec: %+v", c)
		}

		// Again: every counter exists past the native sequence and is skipped.
		out = ts.ok(append(imp, names...)...)
		if strings.Count(out, " skip: exists") != 4 {
			t.Errorf("second import:\n%s", out)
		}
		// A counter behind its native sequence is a conflict; nothing else
		// is created meanwhile.
		ts.ok("setval", sch+".a", "50")
		ts.ok("drop", sch+".c", "--yes")
		r = ts.fails(exitExists, append(imp, names...)...)
		if !strings.Contains(r.stdout, "conflict: exists; its range (from 51) overlaps") {
			t.Errorf("import over a counter behind the native sequence:\n%s", r.stdout)
		}
		ts.fails(exitNotFound, "show", sch+".c", "--sample", "0")

		ts.fails(exitUsage, "import", "--schema", sch)
		ts.fails(exitNotFound, "import", "--from", pgURL, "--schema", sch+"_none", "--sample", "0")
	})
}

// TestImportDefaultMargin checks the margin sized by the measured burn.
func TestImportDefaultMargin(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		conn, pgURL, sch := pgSchema(t)
		pgExec(t, conn,
			"CREATE SEQUENCE "+sch+".hot",
			"SELECT setval('"+sch+".hot', 1000)",
			"CREATE SEQUENCE "+sch+".cold",
		)
		// 200 native values during the 10s sample: 20/s, 1,728,000 a day.
		clock := newFakeClock()
		clock.hook = func() { pgExec(t, conn, "SELECT nextval('"+sch+".hot') FROM generate_series(1, 200)") }
		ts.now, ts.sleep = clock.now, clock.sleep
		var plan []importItem
		decode(t, ts.ok("import", "--from", pgURL, "--schema", sch, "-o", "json"), &plan)
		if len(plan) != 2 {
			t.Fatalf("plan: %+v", plan)
		}
		cold, hot := plan[0], plan[1]
		if cold.Margin != 1_000_000 || *cold.StoreFirst != 1_000_001 || *cold.BurnPerDay != 0 {
			t.Errorf("cold: %+v", cold)
		}
		if hot.Margin != 1_728_000 || *hot.BurnPerDay != 1_728_000 || *hot.NativeNext != 1201 || *hot.StoreFirst != 1201+1_728_000 {
			t.Errorf("hot: %+v (burn %v)", hot, *hot.BurnPerDay)
		}
		var next int64
		if err := conn.QueryRow(context.Background(), "SELECT nextval('"+sch+".hot')").Scan(&next); err != nil || next != 1201 {
			t.Errorf("native hot next: %d, %v", next, err)
		}
	})
}

// TestImportDefaults checks that import records, with each counter, the
// columns whose default draws from its native sequence as the catalog says
// (serial, identity ALWAYS and BY DEFAULT, one sequence shared by DEFAULT
// nextval on several tables, a quoted mixed-case table in another schema),
// and only those: not a view's, not a dropped column's, not a default that
// is more than a plain nextval, which it notes on stderr instead.
func TestImportDefaults(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		conn, pgURL, sch := pgSchema(t)
		other := uniqueName(t, "Other_", 50) // mixed case: quoted
		qother := `"` + other + `"`
		t.Cleanup(func() { pgExec(t, conn, "DROP SCHEMA IF EXISTS "+qother+" CASCADE") })
		pgExec(t, conn,
			"CREATE SCHEMA "+qother,
			"CREATE TABLE "+sch+".orders (id bigserial PRIMARY KEY, note text)",
			"CREATE TABLE "+sch+".events (id bigint GENERATED ALWAYS AS IDENTITY)",
			"CREATE TABLE "+sch+".items (id int GENERATED BY DEFAULT AS IDENTITY (START WITH 100 INCREMENT BY 5 MAXVALUE 100000 CACHE 10))",
			"CREATE SEQUENCE "+sch+".shared_seq",
			"CREATE TABLE "+sch+".a (k bigint DEFAULT nextval('"+sch+".shared_seq'), code text DEFAULT 'INV-' || nextval('"+sch+".shared_seq'), cur bigint DEFAULT currval('"+sch+".shared_seq'))",
			"CREATE TABLE "+sch+".b (k bigint DEFAULT nextval('"+sch+".shared_seq'), small int DEFAULT nextval('"+sch+".shared_seq')::int)",
			"ALTER TABLE "+sch+".b ADD COLUMN gone bigint DEFAULT nextval('"+sch+".shared_seq')",
			"ALTER TABLE "+sch+".b DROP COLUMN gone",
			"CREATE VIEW "+sch+".v AS SELECT k FROM "+sch+".b",
			"ALTER VIEW "+sch+".v ALTER COLUMN k SET DEFAULT nextval('"+sch+".shared_seq')",
			"CREATE TABLE "+sch+".late (a bigint DEFAULT nextval('"+sch+".shared_seq'::text))",
			"CREATE TABLE "+qother+`."MixedCase" ("Id" bigserial, "Shared Col" bigint DEFAULT nextval('`+sch+`.shared_seq'))`,
			"CREATE SEQUENCE "+sch+".unused",
		)
		imp := []string{"import", "--from", pgURL, "--schema", sch + "," + other, "--sample", "0", "--margin", "10"}
		r := ts.run(imp...)
		if r.code != 0 {
			t.Fatalf("import: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{
			"note: column " + sch + ".a.code has DEFAULT ('INV-'::text || nextval('" + sch + ".shared_seq'::regclass)): it uses " + sch + ".shared_seq but is not a plain nextval of it",
			"note: column " + sch + ".a.cur has DEFAULT currval('" + sch + ".shared_seq'::regclass): it uses",
			"note: column " + sch + ".late.a has DEFAULT nextval(('" + sch + ".shared_seq'::text)::regclass), which names its sequence as text",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("import stderr lacks %q:\n%s", want, r.stderr)
			}
		}
		if n := strings.Count(r.stderr, "note: "); n != 3 {
			t.Errorf("import printed %d notes, want 3:\n%s", n, r.stderr)
		}
		if !strings.Contains(r.stdout, sch+".shared_seq ") || !strings.Contains(r.stdout, " +3 more ") {
			t.Errorf("import plan does not show shared_seq's four column defaults:\n%s", r.stdout)
		}

		tests := []struct {
			counter string
			want    string // show's column default lines
		}{
			{sch + ".orders_id_seq", "column defaults:   " + sch + ".orders.id (default)\n"},
			{sch + ".events_id_seq", "column defaults:   " + sch + ".events.id (always)\n"},
			{sch + ".items_id_seq", "column defaults:   " + sch + ".items.id (by-default)\n"},
			{sch + ".shared_seq", "column defaults:   " + qother + `."MixedCase"."Shared Col" (default)` + "\n" +
				"                   " + sch + ".a.k (default)\n" +
				"                   " + sch + ".b.k (default)\n" +
				"                   " + sch + ".b.small (default)\n"},
			{qother + `."MixedCase_Id_seq"`, "column defaults:   " + qother + `."MixedCase"."Id" (default)` + "\n"},
			{sch + ".unused", "column defaults:   none\n"},
		}
		for _, tt := range tests {
			out := ts.ok("show", tt.counter, "--sample", "0")
			_, after, _ := strings.Cut(out, "cycle:             false\n")
			got, _, _ := strings.Cut(after, "last value:")
			if got != tt.want {
				t.Errorf("show %s: column defaults\n%s\nwant\n%s", tt.counter, got, tt.want)
			}
		}
		// The identity column's sequence keeps its options.
		if c := ts.describe(sch + ".items_id_seq"); c.DataType != "integer" || c.IncrementBy != 5 || c.MaxValue != 100000 ||
			c.CacheSize != 10 || c.NextValue == nil || *c.NextValue != 150 {
			t.Errorf("items_id_seq: %+v", c)
		}
		if c := ts.describe(qother + `."MixedCase_Id_seq"`); len(c.ColumnDefaults) != 1 ||
			c.ColumnDefaults[0] != (columnDefaultJSON{Column: qother + `."MixedCase"."Id"`, TableSchema: other,
				TableName: "MixedCase", ColumnName: "Id", Kind: "default"}) {
			t.Errorf("MixedCase_Id_seq -o json column defaults: %+v", c.ColumnDefaults)
		}

		// Imported again: a counter whose defaults differ is skipped and
		// says so; a column another counter has is an error, and nothing is
		// created.
		ts.ok("alter", sch+".events_id_seq", "--no-defaults")
		ts.ok("drop", sch+".orders_id_seq", "--yes")
		ts.ok("create", "thief", "--default", sch+".orders.id")
		r = ts.fails(exitFailed, imp...)
		for _, want := range []string{
			"error: column " + sch + ".orders.id draws its default from counter thief already",
			"skip: exists; its range starts at 11, past the native next value; its column defaults (none) differ from the database's (" + sch + ".events.id (always)), left as they are",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("second import lacks %q:\n%s", want, r.stdout)
			}
		}
		ts.fails(exitNotFound, "show", sch+".orders_id_seq", "--sample", "0")
		ts.ok("drop", "thief", "--yes")
		var plan []importItem
		decode(t, ts.ok(append(imp, "-o", "json")...), &plan)
		for _, it := range plan {
			if it.Name == sch+".orders_id_seq" && (it.Action != "created" || len(it.ColumnDefaults) != 1 || it.ColumnDefaults[0].Kind != "default") {
				t.Errorf("third import of orders_id_seq: %+v", it)
			}
			if it.Name == sch+".shared_seq" && (len(it.ColumnDefaults) != 4 || len(it.Unrecorded) != 2 || it.Unrecorded[0].Column != sch+".a.code") {
				t.Errorf("third import of shared_seq: %+v", it)
			}
		}
	})
}

// TestPlainNextval checks which default expressions, as pg_get_expr writes
// them, import records as drawing plain values from their sequence.
func TestPlainNextval(t *testing.T) {
	tests := []struct {
		expr string
		want bool
	}{
		{`nextval('orders_id_seq'::regclass)`, true},
		{`nextval('shop.orders_id_seq'::regclass)`, true},
		{`nextval('"Other"."MixedCase_Id_seq"'::regclass)`, true},
		{`nextval('"it''s"'::regclass)`, true},
		{`pg_catalog.nextval('s'::regclass)`, true},
		{`(nextval('s'::regclass))::integer`, true},
		{`(nextval('s'::regclass))::smallint`, true},
		{`(nextval('s'::regclass))::numeric`, false},
		{`('INV-'::text || nextval('s'::regclass))`, false},
		{`(nextval('s'::regclass) * 10)`, false},
		{`currval('s'::regclass)`, false},
		{`nextval(('s'::text)::regclass)`, false},
		{`COALESCE(nextval('a'::regclass), nextval('b'::regclass))`, false},
		{`nextval('a'::regclass) + nextval('b'::regclass)`, false},
	}
	for _, tt := range tests {
		if got := plainNextval.MatchString(tt.expr); got != tt.want {
			t.Errorf("plainNextval(%s) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}
