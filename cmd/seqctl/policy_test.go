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

// TestPolicyCosmos: for a cosmos:// store URL, policy prints the Cosmos DB
// role definition on the URL's container.
func TestPolicyCosmos(t *testing.T) {
	ts := &tester{t: t, store: "cosmos://acct.documents.azure.com/seqshim/sequences?prefix=app%2F"}
	var def struct {
		RoleName         string
		Type             string
		AssignableScopes []string
		Permissions      []struct{ DataActions []string }
	}
	for _, admin := range []bool{false, true} {
		args := []string{"policy"}
		if admin {
			args = append(args, "--admin")
		}
		decode(t, ts.ok(args...), &def)
		actions := strings.Join(def.Permissions[0].DataActions, " ")
		if def.Type != "CustomRole" || len(def.AssignableScopes) != 1 || def.AssignableScopes[0] != "/dbs/seqshim/colls/sequences" ||
			!strings.Contains(actions, "items/replace") || strings.Contains(actions, "items/delete") != admin ||
			strings.Contains(actions, "executeQuery") != admin {
			t.Errorf("policy (admin %v) for a Cosmos DB store: %+v", admin, def)
		}
	}
}
