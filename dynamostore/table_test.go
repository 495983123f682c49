package dynamostore_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/seqshim/seqshim/dynamostore"
)

func TestPolicy(t *testing.T) {
	type statement struct {
		Action    []string
		Resource  string
		Condition map[string]map[string][]string
	}
	tests := []struct {
		prefix string
		admin  bool
		// want maps each action to the LeadingKeys pattern it is confined
		// to ("" for none).
		want map[string]string
	}{
		{"", false, map[string]string{"dynamodb:GetItem": "", "dynamodb:UpdateItem": ""}},
		{"billing/", false, map[string]string{"dynamodb:GetItem": "billing/*", "dynamodb:UpdateItem": "billing/*"}},
		{"a*b?$", false, map[string]string{"dynamodb:GetItem": "a${*}b${?}${$}*", "dynamodb:UpdateItem": "a${*}b${?}${$}*"}},
		{"billing/", true, map[string]string{
			"dynamodb:GetItem": "billing/*", "dynamodb:UpdateItem": "billing/*",
			"dynamodb:PutItem": "billing/*", "dynamodb:DeleteItem": "billing/*",
			"dynamodb:Scan": "", "dynamodb:DescribeTable": "", "dynamodb:CreateTable": "",
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/admin=%v", tt.prefix, tt.admin), func(t *testing.T) {
			var doc struct {
				Version   string
				Statement []statement
			}
			if err := json.Unmarshal([]byte(dynamostore.Policy("seqs", tt.prefix, tt.admin)), &doc); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, s := range doc.Statement {
				if s.Resource != "arn:aws:dynamodb:*:*:table/seqs" {
					t.Errorf("resource %q", s.Resource)
				}
				pattern := ""
				if c, ok := s.Condition["ForAllValues:StringLike"]; ok {
					if len(s.Condition) != 1 || len(c) != 1 || len(c["dynamodb:LeadingKeys"]) != 1 {
						t.Fatalf("condition %v", s.Condition)
					}
					pattern = c["dynamodb:LeadingKeys"][0]
				}
				for _, a := range s.Action {
					if _, dup := got[a]; dup {
						t.Errorf("action %s granted twice", a)
					}
					got[a] = pattern
				}
			}
			if doc.Version != "2012-10-17" || len(got) != len(tt.want) {
				t.Fatalf("policy grants %v, want %v", got, tt.want)
			}
			for a, p := range tt.want {
				if g, ok := got[a]; !ok || g != p {
					t.Fatalf("policy grants %v, want %v", got, tt.want)
				}
			}
			if !tt.admin && slices.ContainsFunc(doc.Statement, func(s statement) bool { return slices.Contains(s.Action, "dynamodb:Scan") }) {
				t.Fatal("service policy may scan")
			}
		})
	}
}

// A service confined to its own prefix may reserve, nothing else.
func ExamplePolicy() {
	fmt.Print(dynamostore.Policy("seqshim", "billing/", false))
	// Output:
	// {
	//   "Version": "2012-10-17",
	//   "Statement": [
	//     {
	//       "Sid": "SeqshimReserve",
	//       "Effect": "Allow",
	//       "Action": [
	//         "dynamodb:GetItem",
	//         "dynamodb:UpdateItem"
	//       ],
	//       "Resource": "arn:aws:dynamodb:*:*:table/seqshim",
	//       "Condition": {
	//         "ForAllValues:StringLike": {
	//           "dynamodb:LeadingKeys": [
	//             "billing/*"
	//           ]
	//         }
	//       }
	//     }
	//   ]
	// }
}

func ExampleParseURL() {
	u, err := dynamostore.ParseURL("dynamodb://seqshim?region=eu-west-1&prefix=billing/")
	fmt.Printf("%+v %v\n", u, err)
	// Output:
	// {Table:seqshim Region:eu-west-1 Endpoint: Prefix:billing/} <nil>
}
