package seqcache_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

func Example() {
	ctx := context.Background()
	store := memstore.New()

	// CREATE SEQUENCE orders_seq START 1000 INCREMENT 10
	spec, pos, err := sequence.Clauses{Start: sequence.Int64(1000), Increment: sequence.Int64(10)}.Create()
	if err != nil {
		panic(err)
	}
	name := sequence.MustParseName("public.ORDERS_SEQ")
	if err := store.Create(ctx, name, spec, pos); err != nil {
		panic(err)
	}

	c := seqcache.New(store)
	defer c.Close()
	for range 3 {
		id, err := c.Next(ctx, name)
		if err != nil {
			panic(err)
		}
		fmt.Println(name, id)
	}
	// Output:
	// orders_seq 1000
	// orders_seq 1010
	// orders_seq 1020
}

// failOnce is a store whose first Reserve fails.
type failOnce struct {
	*memstore.Store
	failed atomic.Bool
}

func (s *failOnce) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	if !s.failed.Swap(true) {
		return sequence.Block{}, errors.New("store unavailable")
	}
	return s.Store.Reserve(ctx, name, n)
}

// The cache logs a store failure once (WARN), and the recovery (INFO) when a
// block arrives again; a caller that got no value would be an ERROR. Here
// the first refill fails, and its retry succeeds while Next waits.
func ExampleOptions_logger() {
	ctx := context.Background()
	store := &failOnce{Store: memstore.New()}
	spec := sequence.DefaultSpec()
	if err := store.Create(ctx, "orders_seq", spec, spec.Initial()); err != nil {
		panic(err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "after" { // they change from run to run
				return slog.Attr{}
			}
			return a
		},
	}))
	c := seqcache.New(store, func(o *seqcache.Options) {
		o.Logger = logger       // default: slog.Default()
		o.StoreName = "memory:" // default: the store's Go type
	})
	id, err := c.Next(ctx, "orders_seq")
	c.Close() // waits for the refill, and so for its log
	fmt.Println("orders_seq", id, err)
	// Output:
	// level=WARN msg="seqshim: refill failed" seqshim.sequence=orders_seq seqshim.store=memory: error="store unavailable" retrying=true
	// level=INFO msg="seqshim: refills recovered" seqshim.sequence=orders_seq seqshim.store=memory: store_errors=1 unserved_calls=0
	// orders_seq 1 <nil>
}
