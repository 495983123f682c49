package recipes_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/seqshim/seqshim/integration/ent"
	"github.com/seqshim/seqshim/integration/ent/hook"
	"github.com/seqshim/seqshim/integration/ent/order"
)

// ent: entsql.OpenDB over sql.Open("seqshim", …); Order has a custom
// field.Int64("id") (ent/schema), and a hook sets it from SELECT
// nextval('orders_seq') before every Create.
func Example_ent() {
	ctx := context.Background()
	db, err := sql.Open("seqshim", pgDSN("memory:recipes-ent"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.Postgres, db)))

	// ent's migration creates ent_orders with id bigint and no default: the
	// schema marks id as not incremental (ent/schema/order.go).
	if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS ent_orders"); err != nil {
		log.Fatal(err)
	}
	if err := client.Schema.Create(ctx); err != nil {
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

	// Every Create without an id gets one from the store.
	client.Order.Use(func(next ent.Mutator) ent.Mutator {
		return hook.OrderFunc(func(ctx context.Context, m *ent.OrderMutation) (ent.Value, error) {
			if _, set := m.ID(); !set && m.Op().Is(ent.OpCreate) {
				var id int64
				if err := db.QueryRowContext(ctx, "SELECT nextval('orders_seq')").Scan(&id); err != nil {
					return nil, err
				}
				m.SetID(id)
			}
			return next.Mutate(ctx, m)
		})
	})

	o, err := client.Order.Create().SetItem("widget").Save(ctx)
	if err != nil {
		log.Fatal(err)
	}
	more, err := client.Order.CreateBulk(
		client.Order.Create().SetItem("gadget"),
		client.Order.Create().SetItem("gizmo"),
	).Save(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", o.ID, more[0].ID, more[1].ID)

	found, err := client.Order.Query().Where(order.ItemIn("widget", "gizmo")).Order(order.ByID()).All(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range found {
		fmt.Println("found", o.ID, o.Item)
	}

	finish(ctx, db, "ent_orders")
	// Output:
	// created 1000 1001 1002
	// found 1000 widget
	// found 1002 gizmo
	// store: 3 values of orders_seq served to this process
	// database: orders_seq is the store's fenced twin: true; default of ent_orders.id: ""
}
