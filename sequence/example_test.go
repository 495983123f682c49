package sequence_test

import (
	"errors"
	"fmt"

	"github.com/seqshim/seqshim/sequence"
)

func ExampleClauses_Create() {
	_, _, err := sequence.Clauses{MinValue: sequence.Int64(10), MaxValue: sequence.Int64(1)}.Create()
	var e *sequence.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Message)
	}
	// Output: 22023 MINVALUE (10) must be less than MAXVALUE (1)
}

func ExampleSpec_Reserve() {
	spec, pos, _ := sequence.Clauses{MaxValue: sequence.Int64(10), Cycle: sequence.Bool(true)}.Create()
	for range 3 {
		var b sequence.Block
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
		name, _ := sequence.ParseName(s)
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
