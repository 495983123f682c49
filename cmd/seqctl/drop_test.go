package main

import (
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
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

// TestDropShared checks that drop names the databases a shared counter is
// dropped for, in the question and in the output.
func TestDropShared(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		st := ts.open()
		ts.ok("create", "s")
		attach(t, st, "s", sequence.Member{DB: testDB("16384", "shop_a")})
		attach(t, st, "s", sequence.Member{DB: testDB("16390", "shop_b")})
		dbs := "shop_a (OID 16384, cluster 7301234567890123456), shop_b (OID 16390, cluster 7301234567890123456)"
		ts.stdin = "n\n"
		r := ts.fails(exitFailed, "drop", "s")
		if want := "drop counter s (next value 1, 0 values reserved so far) for every database that uses it: " + dbs + "? [y/N] "; !strings.HasPrefix(r.stderr, want) {
			t.Errorf("drop of a shared counter asked %q, want %q", r.stderr, want)
		}
		if c := ts.describe("s"); len(c.Members) != 2 {
			t.Fatalf("declined drop: members %+v", c.Members)
		}
		ts.stdin = "y\n"
		if out := ts.ok("drop", "s"); out != "dropped s for every database that used it: "+dbs+"\n" {
			t.Errorf("drop of a shared counter printed %q", out)
		}
		ts.fails(exitNotFound, "show", "s", "--sample", "0")

		ts.stdin = ""
		ts.ok("create", "t")
		attach(t, st, "t", sequence.Member{DB: testDB("16384", "shop_a")})
		out := ts.ok("drop", "t", "--yes", "-o", "json")
		if !strings.Contains(out, `"dropped": true`) || !strings.Contains(out, `"database": "shop_a"`) {
			t.Errorf("drop --yes -o json of a shared counter printed %s", out)
		}
	})
}
