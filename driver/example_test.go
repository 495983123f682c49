package driver_test

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/fakedriver"
)

// The Go API around an inner connector. The inner connector here is an
// offline stand-in for pgx's stdlib.GetConnector, so the example runs
// anywhere: the statements it runs are answered in process and never reach
// it.
func Example() {
	inner := &fakedriver.Connector{} // in real code: stdlib.GetConnector(*pgxConfig)
	c, err := driver.NewConnector(inner, func(o *driver.Options) {
		o.StoreURL = "memory:example"
	})
	if err != nil {
		log.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close() // stops refills, hands unused values back to the store

	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE orders_seq START 1000"); err != nil {
		log.Fatal(err)
	}

	// currval is per session: pin one connection.
	conn, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	before := inner.Rec.Calls().Query
	for range 3 {
		var id int64
		if err := conn.QueryRowContext(ctx, "SELECT nextval('orders_seq')").Scan(&id); err != nil {
			log.Fatal(err)
		}
		fmt.Println("nextval", id)
	}
	var cur int64
	if err := conn.QueryRowContext(ctx, "SELECT currval('orders_seq')").Scan(&cur); err != nil {
		log.Fatal(err)
	}
	fmt.Println("currval", cur)
	fmt.Println("inner driver queries:", inner.Rec.Calls().Query-before)
	// Output:
	// nextval 1000
	// nextval 1001
	// nextval 1002
	// currval 1002
	// inner driver queries: 0
}

// Opening by driver name: the only change from sql.Open("pgx", dsn) is the
// name and a store.
func Example_open() {
	db, err := sql.Open("seqshim", os.Getenv("DATABASE_URL")+"?seqshim.store=sqlite:/var/lib/app/seq.db")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	var id int64
	err = db.QueryRow("INSERT INTO orders (id, item) VALUES (nextval('orders_seq'), $1) RETURNING id", "book").Scan(&id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id)
}

// Reaching *pgx.Conn: sql.Conn.Raw, then Unwrap.
func Example_raw() {
	db, err := sql.Open("seqshim", os.Getenv("DATABASE_URL")+"?seqshim.store=memory:")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		inner := dc.(interface{ Unwrap() sqldriver.Conn }).Unwrap()
		pc := inner.(*stdlib.Conn).Conn() // *pgx.Conn: statements on it bypass seqshim
		_, err := pc.CopyFrom(context.Background(), pgx.Identifier{"events"}, []string{"payload"},
			pgx.CopyFromRows([][]any{{"a"}, {"b"}}))
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}

// Statistics without a connection: every connection of the pool is in use,
// and Connector.Stats still answers. For a sql.DB opened with sql.Open (or
// otelsql.Open) there is no Connector in hand: driver.StatsFor takes the
// store URL instead.
func ExampleConnector_Stats() {
	c, err := driver.NewConnector(&fakedriver.Connector{}, func(o *driver.Options) {
		o.StoreURL = "memory:example-stats"
	})
	if err != nil {
		log.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE IF NOT EXISTS orders_seq"); err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx) // the pool's only connection
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	for range 3 {
		var id int64
		if err := conn.QueryRowContext(ctx, "SELECT nextval('orders_seq')").Scan(&id); err != nil {
			log.Fatal(err)
		}
	}
	for _, st := range c.Stats() {
		fmt.Printf("%s: %d served\n", st.Name, st.Served)
	}
	if stats, ok := driver.StatsFor("memory:example-stats"); ok {
		fmt.Printf("by store URL: %s: %d served\n", stats[0].Name, stats[0].Served)
	}
	// Output:
	// orders_seq: 3 served
	// by store URL: orders_seq: 3 served
}
