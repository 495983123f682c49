package seqcache

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"

	"github.com/seqshim/seqshim/sequence"
)

// Next inside a block allocates nothing, metrics registered or not: it
// calls no metric API.
func TestNextAllocFree(t *testing.T) {
	store := newFakeStore()
	store.create("s", sequence.DefaultSpec())
	c := newTestCache(t, store, func(o *Options) { o.MinBlock, o.MaxBlock = 1_000_000, 1_000_000 })
	h := c.Handle("s")
	ctx := context.Background()
	if _, err := h.Next(ctx); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(10_000, func() {
		if _, err := h.Next(ctx); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Handle.Next allocates %v times a call, want 0", allocs)
	}
}

// Without a MeterProvider the cache registers with the global one, which
// forwards to the provider a program installs later; StoreName defaults to
// the store's type.
func TestObservabilityDefaults(t *testing.T) {
	c := newTestCache(t, newFakeStore())
	o := c.Options()
	if o.MeterProvider != otel.GetMeterProvider() {
		t.Errorf("MeterProvider = %T, want the global provider", o.MeterProvider)
	}
	if o.StoreName != "*seqcache.fakeStore" {
		t.Errorf("StoreName = %q, want the store's type", o.StoreName)
	}
	if c.logger() == nil || o.Logger != nil {
		t.Errorf("Logger = %v: want nil, slog.Default() at each message", o.Logger)
	}
}
