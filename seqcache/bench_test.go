package seqcache

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// The benchmarks use a store without latency and blocks of a million values,
// so they measure the hot path: one atomic add inside a block.

func benchCache(b *testing.B) *Cache {
	store := newFakeStore()
	store.create("s", sequence.DefaultSpec())
	c := New(store, func(o *Options) { o.MinBlock, o.MaxBlock = 1_000_000, 1_000_000 })
	b.Cleanup(func() { c.Close() })
	if _, err := c.Next(context.Background(), "s"); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkAtomicAddBaseline is the physical floor: a bare atomic add.
func BenchmarkAtomicAddBaseline(b *testing.B) {
	b.ReportAllocs()
	var n atomic.Int64
	for b.Loop() {
		n.Add(1)
	}
}

func BenchmarkNextHandle(b *testing.B) {
	h := benchCache(b).Handle("s")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNextByName(b *testing.B) {
	c := benchCache(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Next(ctx, "s"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAtomicAddBaselineParallel(b *testing.B) {
	b.ReportAllocs()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n.Add(1)
		}
	})
}

func BenchmarkNextHandleParallel(b *testing.B) {
	h := benchCache(b).Handle("s")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := h.Next(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkNextByNameParallel(b *testing.B) {
	c := benchCache(b)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := c.Next(ctx, "s"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
