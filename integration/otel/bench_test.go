package otel_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/seqshim/seqshim/seqcache"
)

// The hot path with the OpenTelemetry SDK installed, against the same hot
// path with a no-op provider and against a bare atomic add: Handle.Next
// calls no metric API, and the SDK's collections (every 10 ms here, a
// thousand times more often than a usual scrape) read the counters the
// cache keeps anyway. Compare with benchstat:
//
//	go test -run '^$' -bench 'AtomicAdd|Next' -count 10 ./otel

func BenchmarkAtomicAdd(b *testing.B) {
	b.ReportAllocs()
	var n atomic.Int64
	for b.Loop() {
		n.Add(1)
	}
}

func BenchmarkAtomicAddParallel(b *testing.B) {
	b.ReportAllocs()
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n.Add(1)
		}
	})
}

// providers are the MeterProviders the Next benchmarks run under.
var providers = []struct {
	name string
	new  func(b *testing.B) metric.MeterProvider
}{
	{"metrics=noop", func(*testing.B) metric.MeterProvider { return noop.NewMeterProvider() }},
	{"metrics=sdk", sdkProvider},
}

// sdkProvider is an SDK MeterProvider whose ManualReader collects every
// 10 ms until the benchmark ends.
func sdkProvider(b *testing.B) metric.MeterProvider {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		var rm metricdata.ResourceMetrics
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if err := reader.Collect(context.Background(), &rm); err != nil {
					b.Error(err)
					return
				}
			}
		}
	}()
	b.Cleanup(func() {
		close(stop)
		wg.Wait()
		mp.Shutdown(context.Background())
	})
	return mp
}

// benchHandle is a handle over a store without latency, with blocks of a
// million values: the benchmarks measure the hot path inside a block.
func benchHandle(b *testing.B, mp metric.MeterProvider) *seqcache.Handle {
	store := newFlakyStore(b, seq)
	c := seqcache.New(store, func(o *seqcache.Options) {
		o.MeterProvider = mp
		o.MinBlock, o.MaxBlock = 1_000_000, 1_000_000
	})
	b.Cleanup(func() { c.Close() })
	h := c.Handle(seq)
	if _, err := h.Next(context.Background()); err != nil {
		b.Fatal(err)
	}
	return h
}

func BenchmarkNext(b *testing.B) {
	for _, p := range providers {
		b.Run(p.name, func(b *testing.B) {
			h := benchHandle(b, p.new(b))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Next(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNextParallel(b *testing.B) {
	for _, p := range providers {
		b.Run(p.name, func(b *testing.B) {
			h := benchHandle(b, p.new(b))
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
		})
	}
}
