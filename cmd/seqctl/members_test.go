package main

import (
	"strings"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// TestMembersCommand checks the dispatch to members' subcommands and their
// help.
func TestMembersCommand(t *testing.T) {
	ts := &tester{t: t, store: "memory:" + uniqueName(t, "", 60)}
	help := ts.ok("members", "--help")
	for _, c := range memberCommands {
		if !strings.Contains(help, "\n  "+c.name+"  ") {
			t.Errorf("members --help does not list %s:\n%s", c.name, help)
		}
		for _, args := range [][]string{{"members", c.name, "--help"}, {"help", "members", c.name}} {
			out := ts.ok(args...)
			if !strings.HasPrefix(out, "usage: seqctl members "+c.name+" ") {
				t.Errorf("seqctl %v:\n%s", args, out)
			}
			for _, flag := range []string{"-drop-last", "-store", "-o"} {
				if !strings.Contains(out, "\n  "+flag+" ") && !strings.Contains(out, "\n  "+flag+"\n") {
					t.Errorf("seqctl %v does not document %s:\n%s", args, flag, out)
				}
			}
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"members"}, "no members command given (commands: prune, detach)"},
		{[]string{"members", "frob"}, `unknown members command "frob"`},
		{[]string{"members", "prune", "--bogus"}, "run 'seqctl members prune --help'"},
		{[]string{"members", "prune"}, "no cluster to check: pass --check-db"},
		{[]string{"members", "detach", "s"}, "want a counter name and a database"},
	} {
		r := ts.fails(exitUsage, tt.args...)
		if !strings.Contains(r.stderr, tt.want) {
			t.Errorf("seqctl %v: stderr %q, want %q", tt.args, r.stderr, tt.want)
		}
	}
	// Global flags before the subcommand.
	ts.ok("create", "s")
	attach(t, ts.open(), "s", sequence.Member{DB: testDB("1", "a")})
	attach(t, ts.open(), "s", sequence.Member{DB: testDB("2", "b")})
	if out := ts.ok("members", "-o", "json", "detach", "s", "a", "--yes"); !strings.Contains(out, `"detached": true`) {
		t.Errorf("members -o json detach: %s", out)
	}
}
