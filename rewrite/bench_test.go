package rewrite

import (
	"testing"
)

// A typical statement without sequence calls: the cost every such
// statement pays.
const benchNoTrigger = "INSERT INTO order_items (order_id, product_id, quantity, price) VALUES ($1, $2, $3, $4)"

const benchRewrite = "INSERT INTO orders (id, customer_id, total) VALUES (nextval('orders_seq'), $1, $2) RETURNING id"

func BenchmarkPlanNoTrigger(b *testing.B) {
	p := NewPlanner(Postgres, 0)
	b.ReportAllocs()
	for b.Loop() {
		pl, err := p.Plan(benchNoTrigger)
		if err != nil || !pl.PassThrough() {
			b.Fatal("not a pass-through plan")
		}
	}
}

func BenchmarkPlanCachedRewrite(b *testing.B) {
	p := NewPlanner(Postgres, 0)
	if _, err := p.Plan(benchRewrite); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		pl, err := p.Plan(benchRewrite)
		if err != nil || pl.Statements[0].Kind != Rewrite {
			b.Fatal("not a rewrite plan")
		}
	}
}

func BenchmarkPlanCachedRewriteParallel(b *testing.B) {
	p := NewPlanner(Postgres, 0)
	if _, err := p.Plan(benchRewrite); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := p.Plan(benchRewrite); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkBuild is the one-time cost of planning a new SQL text.
func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Build(Postgres, benchRewrite)
	}
}

func BenchmarkAppendSQL(b *testing.B) {
	st := &Build(Postgres, benchRewrite).Statements[0]
	buf := make([]byte, 0, 256)
	values := []int64{42}
	b.ReportAllocs()
	for b.Loop() {
		buf = st.AppendSQL(buf[:0], values)
	}
}
