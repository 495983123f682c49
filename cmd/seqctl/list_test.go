package main

import (
	"strings"
	"testing"
)

func TestList(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		if got := lines(ts.ok("list")); len(got) != 1 || !strings.HasPrefix(got[0], "NAME ") {
			t.Errorf("list of an empty store: %q", got)
		}
		if out := ts.ok("list", "-o", "json"); strings.TrimSpace(out) != "[]" {
			t.Errorf("list -o json of an empty store: %q", out)
		}
		ts.ok("create", "zeta")
		ts.ok("create", "alpha", "--increment", "5")
		ts.ok("create", "app.mid", "--maxvalue", "3", "--default", "app.t.id:always")
		ts.ok("create", "zz", "--default", "b.x", "--default", "a.x", "--default", "c.x")
		ts.ok("next", "alpha", "-n", "2")
		ts.ok("next", "app.mid", "-n", "3")

		var got []counterJSON
		decode(t, ts.ok("list", "-o", "json"), &got)
		var names []string
		for _, c := range got {
			names = append(names, c.Name)
		}
		if strings.Join(names, " ") != "alpha app.mid zeta zz" {
			t.Fatalf("list -o json names: %v", names)
		}
		if got[0].ValuesReserved != 2 || *got[0].NextValue != 11 || got[1].NextValue != nil || got[1].Remaining != 0 {
			t.Errorf("list -o json: %+v", got)
		}
		if len(got[0].ColumnDefaults) != 0 || len(got[1].ColumnDefaults) != 1 || got[1].ColumnDefaults[0].Column != "app.t.id" ||
			len(got[3].ColumnDefaults) != 3 || got[3].ColumnDefaults[0].Column != "a.x" {
			t.Errorf("list -o json column defaults: %+v", got)
		}

		rows := lines(ts.ok("list"))
		if len(rows) != 5 {
			t.Fatalf("list: %q", rows)
		}
		if !strings.HasSuffix(strings.Join(strings.Fields(rows[0]), " "), "LAST RESERVATION DAILY LIMIT CACHE POLICY DATABASES COLUMN DEFAULTS") {
			t.Errorf("list header: %q", rows[0])
		}
		// The last columns: no members (every database's), then the first
		// column default and how many more.
		for i, want := range []string{"  -", "  app.t.id (always)", "  -", "  a.x (default) +2 more"} {
			if !strings.HasSuffix(rows[i+1], want) || !strings.Contains(rows[i+1], "  every database  ") {
				t.Errorf("list row %d: %q, want it to end with every database and %q", i, rows[i+1], want)
			}
		}
		for i, want := range [][]string{
			{"alpha", "bigint", "5", "1", "9223372036854775807", "11", "false", "2"},
			{"app.mid", "bigint", "1", "1", "3", "-", "false", "3"},
			{"zeta", "bigint", "1", "1", "9223372036854775807", "1", "false", "0", "never"},
		} {
			if f := strings.Fields(rows[i+1]); strings.Join(f[:len(want)], " ") != strings.Join(want, " ") {
				t.Errorf("list row %d: %q, want it to start with %q", i, rows[i+1], want)
			}
		}
		ts.fails(exitUsage, "list", "alpha")
	})
}
