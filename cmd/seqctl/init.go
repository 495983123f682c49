package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/sqlstore"
)

const initDoc = `
Prepares the store so that counters can be created in it. Safe to run again:
what exists already is left as it is.

  dynamodb://TABLE?...   creates the table (partition key "name", on-demand
                         billing) and waits until it is ACTIVE. Needs
                         dynamodb:CreateTable and DescribeTable (seqctl policy --admin).
  sqlite:PATH            creates the file and its table.
  postgres://...         creates the table (default seqshim_sequences; &table=NAME).
  memory:                nothing to do.`

// initializer is what a store may offer to create its storage up front.
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
	var what string
	if strings.HasPrefix(strings.ToLower(u), "dynamodb:") {
		what, err = a.initDynamo(ctx, u)
	} else {
		what, err = a.initOther(ctx)
	}
	if err != nil {
		return err
	}
	if a.output == "json" {
		return writeJSON(a.stdout, map[string]string{"store": storeurl.Redact(u), "ready": what})
	}
	_, err = fmt.Fprintf(a.stdout, "store %s ready: %s\n", storeurl.Redact(u), what)
	return err
}

// initDynamo creates the table with a client configured exactly as the store's
// own (the same URL, environment and SDK defaults).
func (a *app) initDynamo(ctx context.Context, u string) (string, error) {
	var opts *dynamodb.Options
	capture := func(o *dynamostore.Options) {
		o.ClientOptions = append(o.ClientOptions, func(co *dynamodb.Options) {
			c := co.Copy()
			opts = &c
		})
	}
	ds, err := dynamostore.Open(ctx, u, capture)
	if err != nil {
		return "", usagef("store %s: %v", storeurl.Redact(u), err)
	}
	if err := dynamostore.CreateTable(ctx, dynamodb.New(*opts), ds.Table()); err != nil {
		return "", fmt.Errorf("%w (needs dynamodb:CreateTable and DescribeTable: see 'seqctl policy --admin')", err)
	}
	return "DynamoDB table " + ds.Table() + " is ACTIVE", nil
}

func (a *app) initOther(ctx context.Context) (string, error) {
	st, err := a.store(ctx)
	if err != nil {
		return "", err
	}
	defer closeStore(st)
	if in, ok := st.(initializer); ok {
		err = in.Init(ctx)
	} else {
		// Stores without an Init create their storage on first use.
		_, err = st.List(ctx)
	}
	if err != nil {
		return "", err
	}
	if ss, ok := st.(*sqlstore.Store); ok {
		return "table " + ss.Table() + " exists", nil
	}
	return "nothing to create", nil
}
