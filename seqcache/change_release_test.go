package seqcache

import (
	"context"
	"testing"

	"github.com/seqshim/seqshim/sequence"
)

// Change hands the unused values back to a sequence.Releaser store before fn runs,
// so fn sees the position PostgreSQL would have: the last value served.
func TestCacheChangeReleases(t *testing.T) {
	store := releasingStore{newFakeStore()}
	store.create("s", sequence.DefaultSpec())
	c := New(store)
	defer c.Close()
	ctx := context.Background()
	for want := int64(1); want <= 3; want++ {
		if v, err := c.Next(ctx, "s"); err != nil || v != want {
			t.Fatalf("Next = %d, %v", v, err)
		}
	}
	var seen sequence.Position
	err := c.Change(ctx, "s", func(context.Context) error {
		seen = store.position("s")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (sequence.Position{Last: 3, Called: true}); seen != want {
		t.Errorf("store position inside Change %+v, want %+v (tail handed back)", seen, want)
	}
	if v, err := c.Next(ctx, "s"); err != nil || v != 4 {
		t.Errorf("Next after Change = %d, %v; want 4, no gap", v, err)
	}
}
