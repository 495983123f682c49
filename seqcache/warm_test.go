package seqcache

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seqshim/seqshim/sequence"
)

// TestWarm checks that Warm reserves one block without handing out a value,
// reports the store's answer, and respects ctx and Close.
func TestWarm(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(f *fakeStore)
		warmSeq string
		wantErr error // nil: warmed
	}{
		{"warmed", func(f *fakeStore) {}, "s", nil},
		{"missing sequence", func(f *fakeStore) {}, "nope", sequence.ErrNotFound},
		{"store down", func(f *fakeStore) { f.setDown(true) }, "s", errDown},
		{"limit reached", func(f *fakeStore) { f.setval("s", 10, true) }, "s", sequence.ErrLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFakeStore()
				f.create("s", mustSpec(t, sequence.Clauses{MaxValue: sequence.Int64(10)}))
				f.latency = 50 * time.Millisecond
				tt.setup(f)
				c := New(f, func(o *Options) { o.MinBlock = 4 })
				defer c.Close()
				err := c.Handle(tt.warmSeq).Warm(t.Context())
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("Warm: %v, want %v", err, tt.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				st := c.Stats("s")
				if st.Reservations != 1 || st.Served != 0 || st.Depth != 4 {
					t.Fatalf("after Warm: %+v; want one block of 4 reserved, none served", st)
				}
				// Warm again: already warm, no store call.
				calls, _ := f.stats()
				if err := c.Handle("s").Warm(t.Context()); err != nil {
					t.Fatal(err)
				}
				if again, _ := f.stats(); again != calls {
					t.Errorf("a second Warm called the store: %d calls, was %d", again, calls)
				}
				// The block is Next's: the first value is the sequence's first.
				if v, err := c.Next(t.Context(), "s"); err != nil || v != 1 {
					t.Errorf("Next after Warm = %d, %v; want 1", v, err)
				}
			})
		})
	}
}

func TestWarmContextAndClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeStore()
		f.create("s", sequence.DefaultSpec())
		f.latency = time.Hour
		c := New(f, func(o *Options) { o.RefillTimeout = 2 * time.Hour })
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := c.Handle("s").Warm(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Warm past its context: %v, want DeadlineExceeded", err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := c.Handle("s").Warm(t.Context()); !errors.Is(err, ErrClosed) {
			t.Errorf("Warm after Close: %v, want ErrClosed", err)
		}
	})
}
