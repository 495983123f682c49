package main

import (
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

func TestMembersDetach(t *testing.T) {
	forEachStore(t, func(t *testing.T, ts *tester) {
		st := ts.open()
		a, b, b2 := testDB("16384", "shop_a"), testDB("16390", "shop_b"), sequence.DatabaseID("42", "16390", "shop_b")
		ts.ok("create", "s")
		for _, db := range []string{a, b, b2} {
			attach(t, st, "s", sequence.Member{DB: db})
		}
		ts.ok("create", "plain")
		members := func() []string {
			t.Helper()
			var dbs []string
			for _, m := range ts.describe("s").Members {
				dbs = append(dbs, m.DB)
			}
			return dbs
		}

		// Refused: nothing changes.
		for _, tt := range []struct {
			code  int
			stdin string
			args  []string
			want  string
		}{
			{exitFailed, "n\n", []string{"s", a}, "shop_a not detached from s: not confirmed"},
			{exitUsage, "", []string{"s", "shop_b", "--yes"}, "2 members of s are databases named shop_b: give the one to detach as SYSTEM_IDENTIFIER/OID/NAME"},
			{exitNotFound, "", []string{"s", "shop_c", "--yes"}, "database shop_c is not a member of s (its members: " + b2 + ", " + a + ", " + b + ")"},
			{exitNotFound, "", []string{"plain", "x", "--yes"}, "plain has no members recorded: it is every database's"},
			{exitNotFound, "", []string{"nope", "x", "--yes"}, "does not exist"},
		} {
			ts.stdin = tt.stdin
			r := ts.fails(tt.code, append([]string{"members", "detach"}, tt.args...)...)
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("members detach %v: stderr %q, want %q", tt.args, r.stderr, tt.want)
			}
		}
		if got := members(); len(got) != 3 {
			t.Fatalf("after refused detaches, members %v", got)
		}
		ts.describe("plain")

		ts.stdin = "yes\n"
		r := ts.run("members", "detach", "s", a)
		if r.code != 0 || !strings.Contains(r.stderr, "detach database shop_a (OID 16384, cluster 7301234567890123456) from counter s, as DROP SEQUENCE in that database would? [y/N]") ||
			r.stdout != "detached shop_a (OID 16384, cluster 7301234567890123456) from s\n" {
			t.Errorf("members detach s %s, confirmed: exit %d\nstdout %q\nstderr %q", a, r.code, r.stdout, r.stderr)
		}
		ts.stdin = ""
		if out := ts.ok("members", "detach", "s", b2, "--yes", "-o", "json"); !strings.Contains(out, `"detached": true`) ||
			!strings.Contains(out, `"dropped": false`) || !strings.Contains(out, `"system_identifier": "42"`) {
			t.Errorf("members detach -o json: %s", out)
		}
		if got := members(); len(got) != 1 || got[0] != b {
			t.Fatalf("after two detaches, members %v, want %s only", got, b)
		}

		// The last member: only with --drop-last.
		r = ts.fails(exitFailed, "members", "detach", "s", "shop_b", "--yes")
		if !strings.Contains(r.stderr, "is the last database of s: detaching it drops the counter; pass --drop-last") {
			t.Errorf("detach of the last member: stderr %q", r.stderr)
		}
		ts.describe("s")
		if out := ts.ok("members", "detach", "s", "shop_b", "--yes", "--drop-last"); !strings.HasSuffix(out, "it was its last database: dropped s\n") {
			t.Errorf("detach --drop-last of the last member printed %q", out)
		}
		ts.fails(exitNotFound, "show", "s", "--sample", "0")
	})
}
