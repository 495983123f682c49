package seqcache_test

import (
	"context"
	"fmt"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

func Example() {
	ctx := context.Background()
	store := memstore.New()

	// CREATE SEQUENCE orders_seq START 1000 INCREMENT 10
	spec, pos, err := sequence.Clauses{Start: sequence.Int64(1000), Increment: sequence.Int64(10)}.Create()
	if err != nil {
		panic(err)
	}
	name := sequence.MustParseName("public.ORDERS_SEQ")
	if err := store.Create(ctx, name, spec, pos); err != nil {
		panic(err)
	}

	c := seqcache.New(store)
	defer c.Close()
	for range 3 {
		id, err := c.Next(ctx, name)
		if err != nil {
			panic(err)
		}
		fmt.Println(name, id)
	}
	// Output:
	// orders_seq 1000
	// orders_seq 1010
	// orders_seq 1020
}
