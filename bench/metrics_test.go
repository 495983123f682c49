package main

import (
	"context"
	"testing"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// The collecting provider runs the callback the cache registers, which
// observes the cache's counters.
func TestCollectingProvider(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	spec := sequence.DefaultSpec()
	if err := store.Create(ctx, "s", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	p := &collectingProvider{}
	c := seqcache.New(store, func(o *seqcache.Options) { o.MeterProvider = p })
	defer c.Close()
	for range 3 {
		if _, err := c.Next(ctx, "s"); err != nil {
			t.Fatal(err)
		}
	}
	p.mu.Lock()
	n := len(p.callbacks)
	p.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d callbacks registered, want 1", n)
	}
	var o sumObserver
	p.callbacks[0](ctx, &o)
	if o.sum < 3 {
		t.Errorf("the callback observed a sum of %v, want at least the 3 values served", o.sum)
	}
}
