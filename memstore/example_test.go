package memstore_test

import (
	"context"
	"fmt"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/sequence"
)

func Example() {
	ctx := context.Background()
	st := memstore.New()

	// CREATE SEQUENCE orders_seq INCREMENT BY 10 MAXVALUE 100
	spec, pos, err := sequence.Clauses{Increment: sequence.Int64(10), MaxValue: sequence.Int64(100)}.Create()
	if err != nil {
		panic(err)
	}
	name := sequence.MustParseName("ORDERS_SEQ")
	if err := st.Create(ctx, name, spec, pos); err != nil {
		panic(err)
	}

	// Two blocks; the second stops at MAXVALUE.
	for range 2 {
		b, err := st.Reserve(ctx, name, 6)
		if err != nil {
			panic(err)
		}
		fmt.Println("block:", b.First, "to", b.Last())
	}
	_, err = st.Reserve(ctx, name, 6)
	fmt.Println(err)

	info, _ := st.Describe(ctx, name)
	fmt.Println(info.Name, info.Reservations, "reservations,", info.ValuesReserved, "values")
	// Output:
	// block: 1 to 51
	// block: 61 to 91
	// nextval: reached maximum value of sequence "orders_seq" (100)
	// orders_seq 2 reservations, 10 values
}

func ExampleOpen() {
	a, _ := memstore.Open("memory:")
	b, _ := memstore.Open("memory:")
	other, _ := memstore.Open("memory:tenant2")
	fmt.Println(a == b, a == other)
	// Output: true false
}
