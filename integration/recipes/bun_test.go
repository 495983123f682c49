package recipes_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// BunOrder's id is a plain bigint primary key (no autoincrement tag: no
// bigserial).
type BunOrder struct {
	bun.BaseModel `bun:"table:bun_orders"`

	ID   int64  `bun:"id,pk"`
	Item string `bun:"item,notnull"`
}

// bun: bun.NewDB over sql.Open("seqshim", …) with pgdialect; the INSERT sets
// id to the SQL expression nextval('orders_seq') with InsertQuery.Value.
func Example_bun() {
	ctx := context.Background()
	sqldb, err := sql.Open("seqshim", pgDSN("memory:recipes-bun"))
	if err != nil {
		log.Fatal(err)
	}
	db := bun.NewDB(sqldb, pgdialect.New())
	defer db.Close()

	if _, err := db.NewDropTable().Model((*BunOrder)(nil)).IfExists().Exec(ctx); err != nil {
		log.Fatal(err)
	}
	if _, err := db.NewCreateTable().Model((*BunOrder)(nil)).Exec(ctx); err != nil {
		log.Fatal(err)
	}
	for _, stmt := range []string{
		"DROP SEQUENCE IF EXISTS orders_seq",
		"CREATE SEQUENCE orders_seq START 1000", // in the store; its fenced twin in the database
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			log.Fatal(err)
		}
	}

	// bun writes INSERT INTO bun_orders (id, item) VALUES
	// (nextval('orders_seq'), 'widget'), (nextval('orders_seq'), 'gadget'), …
	// RETURNING id: seqshim binds one value into each row's call, and bun
	// reads the ids back into the slice.
	orders := []BunOrder{{Item: "widget"}, {Item: "gadget"}, {Item: "gizmo"}}
	_, err = db.NewInsert().Model(&orders).
		Value("id", "nextval('orders_seq')").
		Returning("id").
		Exec(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("inserted", orders[0].ID, orders[1].ID, orders[2].ID)

	var found []BunOrder
	err = db.NewSelect().Model(&found).Where("item IN (?)", bun.List([]string{"widget", "gizmo"})).Order("id").Scan(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range found {
		fmt.Println("found", o.ID, o.Item)
	}

	finish(ctx, db.DB, "bun_orders")
	// Output:
	// inserted 1000 1001 1002
	// found 1000 widget
	// found 1002 gizmo
	// store: 3 values of orders_seq served to this process
	// database: orders_seq is the store's fenced twin: true; default of bun_orders.id: ""
}
