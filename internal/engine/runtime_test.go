package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"

	_ "github.com/seqshim/seqshim/memstore" // memory:
)

// TestRuntimeShares: every engine of the process on one store URL shares
// its store and cache, whichever front end opened it (a planner and DDL
// mode of their own); shadow mode keeps a store and cache of its own; the
// last Close closes the cache, and a later Open opens the store anew.
func TestRuntimeShares(t *testing.T) {
	ctx := context.Background()
	url := "memory:TestRuntimeShares"
	opens := 0
	defer func(f func(context.Context, string) (sequence.Store, error)) { OpenStore = f }(OpenStore)
	OpenStore = func(ctx context.Context, u string) (sequence.Store, error) {
		opens++
		return storeurl.Open(ctx, u)
	}
	a, err := Open(ctx, Config{StoreURL: url, Dialect: rewrite.Postgres})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, Config{StoreURL: url, Dialect: rewrite.SQLite, DDLToDatabase: true})
	if err != nil {
		t.Fatal(err)
	}
	sh, err := Open(ctx, Config{StoreURL: url, Shadow: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Cache() != b.Cache() || a.Store() != b.Store() || opens != 2 {
		t.Fatalf("two engines of one URL: caches shared %v, stores shared %v, %d opens (want 2: serve and shadow)", a.Cache() == b.Cache(), a.Store() == b.Store(), opens)
	}
	if sh.Cache() == a.Cache() || sh.Shadow() == nil || a.Shadow() != nil || CacheFor(url) != a.Cache() {
		t.Fatal("shadow mode shares serve mode's cache, or CacheFor does not find serve mode's")
	}
	if a.Dialect() == b.Dialect() {
		t.Error("engines of one store share a dialect")
	}
	spec, pos, _ := sequence.Clauses{}.Create()
	if err := a.Store().Create(ctx, "s", spec, pos); err != nil {
		t.Fatal(err)
	}
	va, _ := a.Cache().Next(ctx, "s")
	vb, _ := b.Cache().Next(ctx, "s")
	if vb != va+1 {
		t.Errorf("values %d then %d: not one cache", va, vb)
	}
	for _, e := range []*Engine{a, sh} {
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil { // twice: nothing more
		t.Fatal(err)
	}
	if CacheFor(url) != b.Cache() {
		t.Fatal("the store went with the first of its two engines")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if CacheFor(url) != nil {
		t.Fatal("the store outlived its last engine")
	}
	if _, err := b.Cache().Next(ctx, "s"); err == nil {
		t.Error("the cache of a store whose engines all closed still serves")
	}
	c, err := Open(ctx, Config{StoreURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if opens != 3 {
		t.Errorf("%d opens, want the store opened again", opens)
	}
	if _, err := Open(ctx, Config{}); !errors.Is(err, ErrNoStore) {
		t.Errorf("no store: %v, want ErrNoStore", err)
	}
}
