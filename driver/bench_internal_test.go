package driver

import (
	"context"
	"database/sql/driver"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// BenchmarkConnPassThrough is the driver-level cost of a pass-through
// query, without database/sql: the fake inner connection called directly,
// then through the seqshim connection around it.
func BenchmarkConnPassThrough(b *testing.B) {
	fs := newFakeSetup(b)
	fs.fake.Rec.Record = false
	c, inner := fs.connect(b)
	ctx := context.Background()
	q := "SELECT id, name, created_at FROM accounts WHERE id = $1 AND status = 'active'"
	args := named(int64(42))
	for _, tt := range []struct {
		name string
		qc   driver.QueryerContext
	}{{"inner", inner}, {"seqshim", c}} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rows, err := tt.qc.QueryContext(ctx, q, args)
				if err != nil {
					b.Fatal(err)
				}
				rows.Close()
			}
		})
	}
}

// BenchmarkConnLocalNextval is SELECT nextval('s') answered by the seqshim
// connection, rows read.
func BenchmarkConnLocalNextval(b *testing.B) {
	fs := newFakeSetup(b)
	c, _ := fs.connect(b)
	ctx := context.Background()
	dest := make([]driver.Value, 1)
	b.ReportAllocs()
	for b.Loop() {
		rows, err := c.QueryContext(ctx, "SELECT nextval('s')", nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := rows.Next(dest); err != nil {
			b.Fatal(err)
		}
		rows.Close()
	}
}

// BenchmarkConnRewrite is what seqshim adds to INSERT … VALUES
// (nextval('s'), $1) before the inner driver sees it: drawing the value,
// rendering the text and binding the value, against the same call made
// directly on the fake inner connection.
func BenchmarkConnRewrite(b *testing.B) {
	fs := newFakeSetup(b)
	fs.fake.Rec.Record = false
	c, inner := fs.connect(b)
	ctx := context.Background()
	q := "INSERT INTO t (id, v) VALUES (nextval('s'), $1)"
	args := named("x")
	for _, tt := range []struct {
		name string
		ec   driver.ExecerContext
	}{{"inner", inner}, {"seqshim", c}} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tt.ec.ExecContext(ctx, q, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConnInsertPlain is an INSERT into a table without store-backed
// column defaults: called on the inner connection directly, through
// seqshim with a store that has no column defaults, and through seqshim
// with a store that has them for another table — the difference between
// the last two is what column-default injection adds to every other
// INSERT.
func BenchmarkConnInsertPlain(b *testing.B) {
	q := "INSERT INTO accounts (name, email) VALUES ($1, $2)"
	args := named("ann", "ann@example.com")
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		defaults bool
		inner    bool
	}{{"inner", false, true}, {"seqshim", false, false}, {"seqshim-defaults", true, false}} {
		b.Run(tt.name, func(b *testing.B) {
			fs := newFakeSetup(b)
			fs.fake.Rec.Record = false
			if tt.defaults {
				defs := []sequence.ColumnDefault{{Table: "orders", Column: "id"}}
				spec, pos, _ := sequence.Clauses{Defaults: &defs}.Create()
				if err := fs.store.Create(context.Background(), "orders_id_seq", spec, pos); err != nil {
					b.Fatal(err)
				}
			}
			c, inner := fs.connect(b)
			var ec driver.ExecerContext = c
			if tt.inner {
				ec = inner
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ec.ExecContext(ctx, q, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
