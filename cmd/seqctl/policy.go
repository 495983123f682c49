package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/seqshim/seqshim/cosmosstore"
	"github.com/seqshim/seqshim/dynamostore"
)

// storeURLOrEnvString is the store URL of --store, else of $SEQSHIM_STORE,
// else "".
func (a *app) storeURLOrEnvString() string {
	if a.storeURL != "" {
		return a.storeURL
	}
	return a.getenv(envStore)
}

const policyDoc = `
Prints the least-privilege IAM policy (JSON) for a DynamoDB store, or, for a
cosmos:// store URL, the Cosmos DB SQL role definition (JSON; create it with
az cosmosdb sql role definition create --body, assign it to the service's
identity on the container). A Cosmos DB role cannot be confined to a prefix.

Without --admin it is what a service running the seqshim driver needs:
dynamodb:GetItem and UpdateItem on the table, confined by
dynamodb:LeadingKeys to the items under --prefix (the whole table when the
prefix is empty). With --admin it adds what seqctl and sequence DDL need:
PutItem and DeleteItem (also confined to the prefix), Scan for listing, and
DescribeTable and CreateTable for 'seqctl init'. Scan cannot be confined to a
prefix, so grant --admin to operators, not services.

--table and --prefix default to those of a dynamodb:// --store URL (or
$SEQSHIM_STORE). Attach the output with, for example:
  aws iam put-role-policy --role-name app --policy-name seqshim \
      --policy-document "$(seqctl policy --table seqs --prefix app/)"`

func (a *app) cmdPolicy(ctx context.Context, args []string) error {
	fs := a.flagSet("policy", "[flags]", policyDoc)
	table := fs.String("table", "", "DynamoDB `table` name (default: the table of the dynamodb:// store URL)")
	prefix := fs.String("prefix", "", "key `prefix` the policy confines items to (default: the store URL's prefix)")
	admin := fs.Bool("admin", false, "policy for operators (seqctl, sequence DDL) instead of services")
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 0 {
		return usagef("policy takes no arguments")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if u := a.storeURLOrEnvString(); strings.HasPrefix(strings.ToLower(u), "cosmos") && !set["table"] {
		p, err := cosmosstore.ParseURL(u)
		if err != nil {
			return usagef("%v", err)
		}
		_, err = fmt.Fprint(a.stdout, cosmosstore.RoleDefinition(p.Database, p.Container, *admin))
		return err
	}
	if !set["table"] || !set["prefix"] {
		if u := a.storeURLOrEnvString(); strings.HasPrefix(strings.ToLower(u), "dynamodb:") {
			p, err := dynamostore.ParseURL(u)
			if err != nil {
				return usagef("%v", err)
			}
			if !set["table"] {
				*table = p.Table
			}
			if !set["prefix"] {
				*prefix = p.Prefix
			}
		}
	}
	if *table == "" {
		return usagef("no table: pass --table T (and --prefix P), or a dynamodb://TABLE?prefix=P store URL")
	}
	_, err = fmt.Fprint(a.stdout, dynamostore.Policy(*table, *prefix, *admin))
	return err
}
