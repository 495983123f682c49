package dynamostore_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// Open a store from its URL and hand out values through a cache.
func ExampleOpen() {
	ctx := context.Background()
	st, err := dynamostore.Open(ctx, "dynamodb://seqshim?region=eu-west-1&prefix=billing/")
	if err != nil {
		log.Fatal(err)
	}
	spec, pos, _ := sequence.Clauses{}.Create()
	if err := st.Create(ctx, "orders_seq", spec, pos); err != nil && !errors.Is(err, sequence.ErrExists) {
		log.Fatal(err)
	}
	cache := seqcache.New(st)
	defer cache.Close() // hands unused values back
	id, err := cache.Next(ctx, "orders_seq")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id)
}
