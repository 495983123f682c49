package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

func TestAlter(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "s", "--start", "10")
		ts.ok("next", "s", "-n", "5") // 10..14

		var c counterJSON
		decode(t, ts.ok("alter", "s", "--maxvalue", "100", "--increment", "2", "-o", "json"), &c)
		if c.MaxValue != 100 || c.IncrementBy != 2 || c.LastValue != 14 || c.NextValue == nil || *c.NextValue != 16 {
			t.Errorf("alter --maxvalue 100 --increment 2: %+v", c)
		}
		if out := ts.ok("alter", "s", "--restart"); !strings.Contains(out, "next value 10") {
			t.Errorf("alter --restart printed %q", out)
		}
		if out := ts.ok("alter", "s", "--restart=50"); !strings.Contains(out, "next value 50") {
			t.Errorf("alter --restart=50 printed %q", out)
		}
		decode(t, ts.ok("alter", "s", "--cycle", "--no-maxvalue", "-o", "json"), &c)
		if !c.Cycle || c.MaxValue != 9223372036854775807 {
			t.Errorf("alter --cycle --no-maxvalue: %+v", c)
		}
		decode(t, ts.ok("alter", "s", "--no-cycle", "-o", "json"), &c)
		if c.Cycle {
			t.Errorf("alter --no-cycle: %+v", c)
		}
		ts.fails(exitUsage, "alter", "s", "--cycle", "--no-cycle")
		r := ts.fails(exitUsage, "alter", "s", "--maxvalue", "20")
		if !strings.Contains(r.stderr, "RESTART value (50) cannot be greater than MAXVALUE (20)") {
			t.Errorf("alter below the position: %q", r.stderr)
		}
		ts.fails(exitUsage, "alter", "s")
		ts.fails(exitUsage, "alter", "s", "--restart=x")
		ts.fails(exitUsage, "alter", "s", "--maxvalue", "5", "--no-maxvalue")
		ts.fails(exitNotFound, "alter", "nope", "--cache", "5")

		if out := ts.ok("alter", "s", "--rename-to", "t"); out != "renamed s to t\n" {
			t.Errorf("alter --rename-to printed %q", out)
		}
		if c := ts.describe("t"); c.NextValue == nil || *c.NextValue != 50 {
			t.Errorf("renamed counter lost its position: %+v", c)
		}
		ts.fails(exitNotFound, "show", "s", "--sample", "0")
		ts.fails(exitUsage, "alter", "t", "--rename-to", "u", "--cache", "3")
	})
}

// TestAlterDefaults runs alter's column default flags in order on one
// counter; each step gives the defaults expected after it, or the exit code
// and message of its error (which leaves the defaults as they were).
func TestAlterDefaults(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "s", "--default", "orders.id")
		ts.ok("create", "other", "--default", "taken.id:always")
		steps := []struct {
			args    []string
			want    []string // the columns' String after the step
			code    int
			message string
		}{
			{args: []string{"--default", "b.id:always"}, want: []string{"b.id (always)", "orders.id (default)"}},
			{args: []string{"--default", "ORDERS.ID:by-default", "--cache", "5"}, want: []string{"b.id (always)", "orders.id (by-default)"}},
			{args: []string{"--default", `"A".x`}, want: []string{`"A".x (default)`, "b.id (always)", "orders.id (by-default)"}},
			{args: []string{"--no-default", `"A".x`, "--no-default", "public.b.id"}, want: []string{"orders.id (by-default)"}},
			{args: []string{"--no-default", "b.id"}, code: exitFailed,
				message: "--no-default b.id: not a column default of s (its column defaults: orders.id (by-default))"},
			{args: []string{"--default", "taken.id"}, code: exitFailed,
				message: "column taken.id draws its default from counter other already"},
			{args: []string{"--default", "x.y", "--no-default", "X.Y"}, code: exitUsage,
				message: "conflicting options: --default and --no-default of column x.y"},
			{args: []string{"--no-defaults", "--no-default", "orders.id"}, code: exitUsage,
				message: "conflicting options: --no-default with --no-defaults"},
			{args: []string{"--no-default", "orders.id:always"}, code: exitUsage,
				message: "give the column without a kind"},
			{args: []string{"--default", "x"}, code: exitUsage, message: "want table.column"},
			{args: []string{"--no-defaults", "--default", "n.a", "--default", "n.b:always"}, want: []string{"n.a (default)", "n.b (always)"}},
			{args: []string{"--no-defaults"}, want: nil},
			{args: []string{"--no-defaults"}, want: nil}, // nothing to remove: still none
			{args: []string{"--default", "n.a"}, want: []string{"n.a (default)"}},
			{args: []string{"--rename-to", "t", "--default", "n.b"}, code: exitUsage,
				message: "--rename-to cannot be combined with other options"},
		}
		for _, st := range steps {
			args := append([]string{"alter", "s"}, st.args...)
			before := ts.describe("s").ColumnDefaults
			if st.code != 0 {
				r := ts.fails(st.code, args...)
				if !strings.Contains(r.stderr, st.message) {
					t.Errorf("%v: %q, want it to contain %q", args, r.stderr, st.message)
				}
				if after := ts.describe("s").ColumnDefaults; !reflect.DeepEqual(after, before) {
					t.Errorf("%v failed but changed the defaults from %v to %v", args, before, after)
				}
				continue
			}
			var c counterJSON
			decode(t, ts.ok(append(args, "-o", "json")...), &c)
			var got []string
			for _, d := range c.ColumnDefaults {
				got = append(got, d.Column+" ("+d.Kind+")")
			}
			if !reflect.DeepEqual(got, st.want) {
				t.Errorf("%v: column defaults %q, want %q", args, got, st.want)
			}
		}
		// The table output says what the defaults are now, also when none.
		if out := ts.ok("alter", "s", "--no-defaults"); !strings.HasSuffix(out, "; column defaults: none\n") {
			t.Errorf("alter --no-defaults printed %q", out)
		}
		if out := ts.ok("alter", "s", "--default", "z.z"); !strings.HasSuffix(out, "; column defaults: z.z (default)\n") {
			t.Errorf("alter --default printed %q", out)
		}
		if out := ts.ok("alter", "s", "--cache", "2"); !strings.HasSuffix(out, "; column defaults: z.z (default)\n") {
			t.Errorf("alter of a counter with column defaults printed %q", out)
		}
		ts.ok("create", "plain")
		if out := ts.ok("alter", "plain", "--cache", "2"); strings.Contains(out, "column defaults") {
			t.Errorf("alter of a counter without column defaults printed them: %q", out)
		}
		// A rename keeps the defaults.
		ts.ok("alter", "s", "--rename-to", "t")
		if c := ts.describe("t"); len(c.ColumnDefaults) != 1 || c.ColumnDefaults[0].Column != "z.z" {
			t.Errorf("renamed counter's column defaults: %+v", c.ColumnDefaults)
		}
		ts.fails(exitNotFound, "alter", "nope", "--default", "q.q")
		ts.fails(exitNotFound, "alter", "nope", "--no-defaults")

		// A shared counter's column defaults are each database's: refused,
		// as no database would see them; its other options still change.
		ts.ok("create", "shared")
		attach(t, ts.open(), "shared", sequence.Member{DB: testDB("16384", "shop_a"), Defaults: cols(t, "orders.id")})
		for _, args := range [][]string{{"--default", "q.q"}, {"--no-default", "orders.id"}, {"--no-defaults"}} {
			r := ts.fails(exitFailed, append([]string{"alter", "shared"}, args...)...)
			if !strings.Contains(r.stderr, "shared is shared by databases that each have their own column defaults") {
				t.Errorf("alter shared %v: stderr %q", args, r.stderr)
			}
		}
		ts.ok("alter", "shared", "--cache", "5")
		if c := ts.describe("shared"); len(c.Members) != 1 || len(c.Members[0].ColumnDefaults) != 1 || c.CacheSize != 5 {
			t.Errorf("after alter of a shared counter: %+v", c)
		}
		// A member's column is claimed in its database.
		r := ts.fails(exitFailed, "alter", "t", "--default", "orders.id")
		if !strings.Contains(r.stderr, "draws its default from counter shared already in database shop_a") {
			t.Errorf("alter --default of a member's column: stderr %q", r.stderr)
		}
	})
}
