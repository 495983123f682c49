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
