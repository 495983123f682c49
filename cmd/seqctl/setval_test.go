package main

import (
	"strings"
	"testing"
)

func TestSetval(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "s", "--maxvalue", "1000")
		if out := ts.ok("setval", "s", "100"); out != "s: next value 101\n" {
			t.Errorf("setval s 100 printed %q", out)
		}
		if got := ts.ok("next", "s"); got != "101\n" {
			t.Errorf("next after setval 100: %q", got)
		}
		var c counterJSON
		decode(t, ts.ok("setval", "s", "500", "--is-called=false", "-o", "json"), &c)
		if c.LastValue != 500 || c.IsCalled || *c.NextValue != 500 {
			t.Errorf("setval --is-called=false: %+v", c)
		}
		if got := ts.ok("next", "s"); got != "500\n" {
			t.Errorf("next after setval 500 false: %q", got)
		}
		r := ts.fails(exitUsage, "setval", "s", "1001")
		if !strings.Contains(r.stderr, `setval: value 1001 is out of bounds for sequence "s" (1..1000)`) {
			t.Errorf("setval out of bounds: %q", r.stderr)
		}
		ts.ok("create", "down", "--increment", "-1")
		ts.ok("setval", "down", "-42")
		if got := ts.ok("next", "down"); got != "-43\n" {
			t.Errorf("next after setval down -42: %q", got)
		}
		ts.fails(exitUsage, "setval", "s")
		ts.fails(exitUsage, "setval", "s", "x")
		ts.fails(exitNotFound, "setval", "nope", "1")
	})
}
