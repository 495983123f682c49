package cosmosstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/seqshim/seqshim/cosmosstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// Open a store from its URL (the key in $AZURE_COSMOS_KEY, or an Entra
// identity), create its container, and hand out values through a cache.
func ExampleOpen() {
	ctx := context.Background()
	st, err := cosmosstore.Open(ctx, "cosmos://acct.documents.azure.com/seqshim/sequences?prefix=billing/")
	if err != nil {
		log.Fatal(err)
	}
	if err := st.Init(ctx); err != nil { // seqctl init does this once
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
	fmt.Printf("%+v\n", st.Stats()) // requests, 412s, 429s, request units
}
