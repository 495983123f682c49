package recipes_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	_ "github.com/seqshim/seqshim/driver" // registers "seqshim"
)

type sqlxOrder struct {
	ID   int64  `db:"id"`
	Item string `db:"item"`
}

// sqlx: ids from nextval('orders_seq') in the INSERT of a named query; In and
// Rebind for the lookup.
func Example_sqlx() {
	// sqlx chooses the placeholder style ($1 or ?) from the driver name. It
	// knows "pgx" and "postgres", not "seqshim": without this line, Rebind
	// and In leave ? in the SQL and named queries (:item) compile to ?, which
	// PostgreSQL rejects. Call it once, before the first query.
	// (sqlx.NewDb(sql.OpenDB(connector), "pgx") is the other way.)
	sqlx.BindDriver("seqshim", sqlx.DOLLAR)

	ctx := context.Background()
	db, err := sqlx.Open("seqshim", pgDSN("memory:recipes-sqlx"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	for _, stmt := range []string{
		"DROP TABLE IF EXISTS sqlx_orders",
		"CREATE TABLE sqlx_orders (id bigint PRIMARY KEY, item text NOT NULL)",
		"DROP SEQUENCE IF EXISTS orders_seq",    // in the store
		"CREATE SEQUENCE orders_seq START 1000", // in the store; its fenced twin in the database
	} {
		db.MustExecContext(ctx, stmt)
	}

	// seqshim draws nextval('orders_seq') from its cache and binds the value
	// into the INSERT; the database stores it and returns it. A prepared
	// statement draws a fresh value on every execution.
	insert, err := db.PrepareNamedContext(ctx,
		`INSERT INTO sqlx_orders (id, item) VALUES (nextval('orders_seq'), :item) RETURNING id`)
	if err != nil {
		log.Fatal(err)
	}
	defer insert.Close()
	for _, item := range []string{"widget", "gadget", "gizmo"} {
		o := sqlxOrder{Item: item}
		if err := insert.GetContext(ctx, &o.ID, o); err != nil {
			log.Fatal(err)
		}
		fmt.Println("inserted", o.ID, o.Item)
	}

	query, args, err := sqlx.In("SELECT id, item FROM sqlx_orders WHERE item IN (?) ORDER BY id", []string{"widget", "gizmo"})
	if err != nil {
		log.Fatal(err)
	}
	var found []sqlxOrder
	if err := db.SelectContext(ctx, &found, db.Rebind(query), args...); err != nil {
		log.Fatal(err)
	}
	fmt.Println("found", found)

	finish(ctx, db.DB, "sqlx_orders")
	// Output:
	// inserted 1000 widget
	// inserted 1001 gadget
	// inserted 1002 gizmo
	// found [{1000 widget} {1002 gizmo}]
	// store: 3 values of orders_seq served to this process
	// database: orders_seq is the store's fenced twin: true; default of sqlx_orders.id: ""
}

// TestSqlxBindDriver shows why Example_sqlx calls sqlx.BindDriver: sqlx leaves
// ? placeholders alone for a driver name it does not know.
func TestSqlxBindDriver(t *testing.T) {
	db := sqlx.NewDb(nil, "seqshim")
	defer sqlx.BindDriver("seqshim", sqlx.BindType("seqshim"))
	sqlx.BindDriver("seqshim", sqlx.UNKNOWN) // as before any BindDriver call
	if got := db.Rebind("SELECT ? , ?"); got != "SELECT ? , ?" {
		t.Errorf("unbound: Rebind = %q", got)
	}
	if q, _, err := db.BindNamed("VALUES (:item)", sqlxOrder{Item: "x"}); err != nil || !strings.Contains(q, "?") {
		t.Errorf("unbound: BindNamed = %q, %v; want ?", q, err)
	}
	sqlx.BindDriver("seqshim", sqlx.DOLLAR)
	if got := db.Rebind("SELECT ? , ?"); got != "SELECT $1 , $2" {
		t.Errorf("bound: Rebind = %q", got)
	}
}
