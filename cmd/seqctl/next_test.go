package main

import (
	"strings"
	"testing"
)

func TestNext(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "s")
		if got := ts.ok("next", "s"); got != "1\n" {
			t.Errorf("next s: %q", got)
		}
		if got := ts.ok("next", "s", "-n", "4"); got != "2\n3\n4\n5\n" {
			t.Errorf("next s -n 4: %q", got)
		}
		if c := ts.describe("s"); c.LastValue != 5 || c.ValuesReserved != 5 {
			t.Errorf("next took other than 5 values: %+v", c)
		}
		var got struct {
			Name   string  `json:"name"`
			Values []int64 `json:"values"`
		}
		decode(t, ts.ok("next", "s", "-n", "2", "-o", "json"), &got)
		if got.Name != "s" || len(got.Values) != 2 || got.Values[0] != 6 || got.Values[1] != 7 {
			t.Errorf("next -o json: %+v", got)
		}

		ts.ok("create", "small", "--maxvalue", "3")
		r := ts.fails(exitLimit, "next", "small", "-n", "5")
		if r.stdout != "1\n2\n3\n" || !strings.Contains(r.stderr, `reached maximum value of sequence "small" (3)`) {
			t.Errorf("next past MAXVALUE: stdout %q stderr %q", r.stdout, r.stderr)
		}
		ts.ok("create", "ring", "--maxvalue", "3", "--cycle")
		if got := ts.ok("next", "ring", "-n", "5"); got != "1\n2\n3\n1\n2\n" {
			t.Errorf("next with CYCLE: %q", got)
		}
		ts.ok("create", "down", "--increment", "-3", "--start", "-1")
		if got := ts.ok("next", "down", "-n", "3"); got != "-1\n-4\n-7\n" {
			t.Errorf("next descending: %q", got)
		}
		ts.fails(exitNotFound, "next", "nope")
		ts.fails(exitUsage, "next", "s", "-n", "0")
	})
}
