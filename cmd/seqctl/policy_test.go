package main

import (
	"encoding/json"
	"strings"
	"testing"
)

type iamPolicy struct {
	Version   string
	Statement []struct {
		Sid       string
		Action    []string
		Resource  string
		Condition map[string]map[string][]string
	}
}

func TestPolicy(t *testing.T) {
	ts := &tester{t: t, store: "memory:policy"}
	var p iamPolicy
	decode(t, ts.ok("policy", "--table", "seqs", "--prefix", "app/"), &p)
	if len(p.Statement) != 1 || p.Statement[0].Resource != "arn:aws:dynamodb:*:*:table/seqs" ||
		strings.Join(p.Statement[0].Action, " ") != "dynamodb:GetItem dynamodb:UpdateItem" ||
		p.Statement[0].Condition["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0] != "app/*" {
		t.Errorf("service policy: %+v", p)
	}
	decode(t, ts.ok("policy", "--table", "seqs", "--admin"), &p)
	if len(p.Statement) != 2 || !strings.Contains(strings.Join(p.Statement[1].Action, " "), "dynamodb:CreateTable") {
		t.Errorf("admin policy: %+v", p)
	}

	forEachStore(t, func(t *testing.T, ts *tester) {
		if strings.HasPrefix(ts.store, "sqlite:") {
			r := ts.fails(exitUsage, "policy")
			if !strings.Contains(r.stderr, "pass --table") {
				t.Errorf("policy for a SQLite store: %q", r.stderr)
			}
			return
		}
		// The table and prefix come from the dynamodb:// store URL.
		ts.store += "&prefix=svc1%2F"
		out := ts.ok("policy")
		if !json.Valid([]byte(out)) {
			t.Fatalf("policy is not JSON:\n%s", out)
		}
		decode(t, out, &p)
		table := strings.TrimPrefix(strings.SplitN(ts.store, "?", 2)[0], "dynamodb://")
		if p.Statement[0].Resource != "arn:aws:dynamodb:*:*:table/"+table ||
			p.Statement[0].Condition["ForAllValues:StringLike"]["dynamodb:LeadingKeys"][0] != "svc1/*" {
			t.Errorf("policy from the store URL: %+v", p)
		}
		// The store under that prefix works with init'ed table.
		ts.ok("create", "s")
		ts.ok("next", "s")
	})
}
