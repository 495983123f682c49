package seqcache_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
)

func Example() {
	ctx := context.Background()
	store := memstore.New()

	// CREATE SEQUENCE orders_seq START 1000 INCREMENT 10
	spec, pos, err := seqcache.Clauses{Start: seqcache.Int64(1000), Increment: seqcache.Int64(10)}.Create()
	if err != nil {
		panic(err)
	}
	name := seqcache.MustParseName("public.ORDERS_SEQ")
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

func ExampleClauses_Create() {
	_, _, err := seqcache.Clauses{MinValue: seqcache.Int64(10), MaxValue: seqcache.Int64(1)}.Create()
	var e *seqcache.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Message)
	}
	// Output: 22023 MINVALUE (10) must be less than MAXVALUE (1)
}

func ExampleSpec_Reserve() {
	spec, pos, _ := seqcache.Clauses{MaxValue: seqcache.Int64(10), Cycle: seqcache.Bool(true)}.Create()
	for range 3 {
		var b seqcache.Block
		b, pos, _ = spec.Reserve("s", pos, 4)
		fmt.Printf("%d values from %d to %d\n", b.Count, b.First, b.Last())
	}
	// Output:
	// 4 values from 1 to 4
	// 4 values from 5 to 8
	// 2 values from 9 to 10
}

func ExampleParseName() {
	for _, s := range []string{"orders_seq", "ORDERS_SEQ", `"orders_seq"`, "public.orders_seq", `"Orders_Seq"`, "app.Orders_Seq"} {
		name, _ := seqcache.ParseName(s)
		fmt.Println(name)
	}
	// Output:
	// orders_seq
	// orders_seq
	// orders_seq
	// orders_seq
	// "Orders_Seq"
	// app.orders_seq
}
