// Package schema holds the ent schema of the recipe: one entity, Order, whose
// id is set by the application from SELECT nextval('orders_seq').
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// Order is an order. Its id is an ordinary bigint primary key with no
// database default: the application sets it before Create, from a value
// seqshim draws from its store.
type Order struct {
	ent.Schema
}

// Fields of Order.
func (Order) Fields() []ent.Field {
	// Not incremental: ent's migration makes id a plain bigint, not an
	// identity column drawing from the database's own sequence.
	incremental := false
	return []ent.Field{
		field.Int64("id").Immutable().
			Annotations(entsql.Annotation{Incremental: &incremental}),
		field.String("item"),
	}
}

// Annotations of Order: its own table, apart from the other recipes'.
func (Order) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "ent_orders"}}
}
