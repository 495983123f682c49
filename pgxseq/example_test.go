package pgxseq_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/pgxseq"
)

// The migration of a pgxpool program: pgxpool.New becomes pgxseq.New, and
// the connection string (or SEQSHIM_STORE) names the store. The statements
// do not change.
func Example() {
	ctx := context.Background()
	pool, err := pgxseq.New(ctx, os.Getenv("DATABASE_URL")+"?seqshim.store=memory:example")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close() // hands unused values back to the store

	if _, err := pool.Exec(ctx, "CREATE TABLE orders (id bigserial PRIMARY KEY, item text)"); err != nil {
		log.Fatal(err)
	}
	var id int64
	if err := pool.QueryRow(ctx, "INSERT INTO orders (item) VALUES ($1) RETURNING id", "tea").Scan(&id); err != nil {
		log.Fatal(err)
	}
	fmt.Println("order", id) // from the store's cache, not the database's sequence
}

// COPY into a table whose id the store serves: every row's id is filled
// in, and WithAssigned reports them (COPY itself cannot).
func ExampleWithAssigned() {
	ctx := context.Background()
	pool, err := pgxseq.New(ctx, os.Getenv("DATABASE_URL"), func(o *pgxseq.Options) { o.StoreURL = "memory:example" })
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	var ids pgxseq.Assigned
	rows := [][]any{{"tea"}, {"coffee"}}
	if _, err := pool.CopyFrom(pgxseq.WithAssigned(ctx, &ids), pgx.Identifier{"orders"}, []string{"item"}, pgx.CopyFromRows(rows)); err != nil {
		log.Fatal(err)
	}
	for i, id := range ids.Values {
		fmt.Println(rows[i][0], id)
	}
}
