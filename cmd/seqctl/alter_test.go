package main

import (
	"strings"
	"testing"
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
