package main

import (
	"strings"
	"testing"
)

func TestDrop(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		ts.ok("create", "s")
		for _, answer := range []string{"", "n\n", "no\n", "maybe\n"} {
			ts.stdin = answer
			r := ts.fails(exitFailed, "drop", "s")
			if !strings.Contains(r.stderr, "drop counter s (next value 1") || !strings.Contains(r.stderr, "not dropped") {
				t.Errorf("answer %q: stderr %q", answer, r.stderr)
			}
			ts.describe("s") // still there
		}
		ts.stdin = "y\n"
		if out := ts.ok("drop", "s"); out != "dropped s\n" {
			t.Errorf("drop confirmed with y printed %q", out)
		}
		ts.fails(exitNotFound, "show", "s", "--sample", "0")

		ts.stdin = ""
		ts.ok("create", "t")
		if out := ts.ok("drop", "T", "--yes", "-o", "json"); !strings.Contains(out, `"dropped": true`) {
			t.Errorf("drop --yes -o json printed %q", out)
		}
		ts.fails(exitNotFound, "drop", "t", "--yes")
		if out := ts.ok("drop", "t", "--yes", "--if-exists"); !strings.Contains(out, "nothing dropped") {
			t.Errorf("drop --if-exists of a missing counter printed %q", out)
		}
	})
}
