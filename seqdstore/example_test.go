package seqdstore_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/seqdstore"
	"github.com/seqshim/seqshim/sequence"
)

// A process draws values through the service: its own cache over the
// client store, the server's cache over the store behind it.
func Example() {
	ctx := context.Background()
	store := memstore.New()
	spec := sequence.DefaultSpec()
	_ = store.Create(ctx, "orders_seq", spec, spec.Initial())

	srv, _ := seqd.New(seqd.Config{Store: store, Open: true}) // Open: a loopback demo, no credentials
	hs := httptest.NewServer(srv.Handler())
	defer srv.Close()
	defer hs.Close()

	client, err := seqdstore.Open(ctx, "seqd+http://"+strings.TrimPrefix(hs.URL, "http://"))
	if err != nil {
		panic(err)
	}
	defer client.Close()
	cache := seqcache.New(client)
	defer cache.Close()
	for range 3 {
		v, _ := cache.Next(ctx, "orders_seq")
		fmt.Println(v)
	}
	_, err = client.Reserve(ctx, "missing_seq", 10)
	fmt.Println(err)
	// Output:
	// 1
	// 2
	// 3
	// relation "missing_seq" does not exist
}
