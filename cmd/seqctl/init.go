package main

import (
	"context"
	"fmt"

	"github.com/seqshim/seqshim/cosmosstore"
	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
)

const initDoc = `
Prepares the store so that counters can be created in it. Safe to run again:
what exists already is left as it is.

  dynamodb://TABLE?...   creates the table (partition key "name", on-demand
                         billing) and waits until it is ACTIVE. Needs
                         dynamodb:CreateTable and DescribeTable (seqctl policy --admin).
  cosmos://HOST/DB/C     creates the database and the container (partition
                         key /id, indexing /name only) if missing. Needs the
                         account key, or control-plane rights.
  sqlite:PATH            creates the file and its table.
  postgres://...         creates the table (default seqshim_sequences; &table=NAME).
  memory:                nothing to do.`

// initializer is what a store may offer to create its storage up front
// (dynamostore: the table; cosmosstore: the database and the container).
type initializer interface {
	Init(ctx context.Context) error
}

func (a *app) cmdInit(ctx context.Context, args []string) error {
	fs := a.flagSet("init", "[flags]", initDoc)
	args, err := a.parse(fs, args)
	if err != nil {
		return err
	}
	ctx, cancel := a.bounded(ctx)
	defer cancel()
	if len(args) != 0 {
		return usagef("init takes no arguments")
	}
	u, err := a.storeURLOrEnv()
	if err != nil {
		return err
	}
	st, err := a.store(ctx)
	if err != nil {
		return err
	}
	defer closeStore(st)
	what, err := initStore(ctx, st)
	if err != nil {
		return err
	}
	if a.output == "json" {
		return writeJSON(a.stdout, map[string]string{"store": storeurl.Redact(u), "ready": what})
	}
	_, err = fmt.Fprintf(a.stdout, "store %s ready: %s\n", storeurl.Redact(u), what)
	return err
}

// initStore creates the storage of st, if it has any to create, and says
// what is ready. Its errors are the store's own, which name the store and
// what to do (credentials, permissions, a directory to create).
func initStore(ctx context.Context, st sequence.Store) (string, error) {
	var err error
	switch s := st.(type) {
	case initializer:
		err = s.Init(ctx)
	case sequence.Checker:
		// The SQL store creates its table on first use; Check is one.
		err = s.Check(ctx)
	default:
		_, err = st.List(ctx)
	}
	if err != nil {
		return "", err
	}
	switch s := st.(type) {
	case *dynamostore.Store:
		return "DynamoDB table " + s.Table() + " is ACTIVE", nil
	case *sqlstore.Store:
		return "table " + s.Table() + " exists", nil
	case *cosmosstore.Store:
		return "Cosmos DB container " + s.Database() + "/" + s.Container() + " exists", nil
	}
	return "nothing to create", nil
}
