package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite" // links the SQLite engine: sqlite: URLs
)

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sqlstore-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	st, err := sqlstore.Open(ctx, "sqlite:"+filepath.Join(dir, "seq.db"))
	if err != nil {
		panic(err)
	}
	defer st.Close()

	// CREATE SEQUENCE orders_seq START 1000
	spec, pos, err := sequence.Clauses{Start: sequence.Int64(1000)}.Create()
	if err != nil {
		panic(err)
	}
	if err := st.Create(ctx, "orders_seq", spec, pos); err != nil {
		panic(err)
	}
	for range 2 {
		b, err := st.Reserve(ctx, "orders_seq", 100)
		if err != nil {
			panic(err)
		}
		fmt.Println("block:", b.First, "to", b.Last())
	}
	info, err := st.Describe(ctx, "orders_seq")
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Name, "last value", info.Position.Last, "after", info.Reservations, "reservations")
	// Output:
	// block: 1000 to 1099
	// block: 1100 to 1199
	// orders_seq last value 1199 after 2 reservations
}
