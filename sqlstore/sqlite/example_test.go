package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore/sqlite"
)

func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sqlite-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	st, err := sqlite.Open(ctx, "sqlite:"+filepath.Join(dir, "seq.db"))
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
	b, err := st.Reserve(ctx, "orders_seq", 100)
	if err != nil {
		panic(err)
	}
	fmt.Println("block:", b.First, "to", b.Last())
	// Output:
	// block: 1000 to 1099
}
