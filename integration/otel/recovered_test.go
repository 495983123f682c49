package otel_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// tokenStore is a memstore with tokens (sequence.Recoverer) that loses the
// answer of its first reservation after applying it.
type tokenStore struct {
	*memstore.Store
	mu   sync.Mutex // guards the fields below
	lose int        // answers still to lose
	tok  sequence.Token
	blk  sequence.Block
}

func (s *tokenStore) ReserveToken(ctx context.Context, name string, n int64, tok sequence.Token) (sequence.Block, error) {
	b, err := s.Store.Reserve(ctx, name, n)
	if err != nil {
		return b, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tok, s.blk = tok, b
	if s.lose > 0 {
		s.lose--
		return sequence.Block{}, codedError("RequestTimeout")
	}
	return b, nil
}

func (s *tokenStore) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	return s.ReserveToken(ctx, name, n, sequence.Token{})
}

func (s *tokenStore) Recover(_ context.Context, _ string, tok sequence.Token) (sequence.Block, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.IsZero() || tok != s.tok {
		return sequence.Block{}, false, nil
	}
	return s.blk, true, nil
}

// A reservation whose answer is lost and recovered shows in
// seqshim.values.recovered (its values), in seqshim.store.errors (the lost
// answer, by error.type) and in reserved like any block, as in Stats; no
// value is lost: 150 calls get 1..150.
func TestMetricsRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp, reader := newProvider(t)
		store := &tokenStore{Store: memstore.New(), lose: 1}
		spec := sequence.DefaultSpec()
		if err := store.Create(context.Background(), seq, spec, spec.Initial()); err != nil {
			t.Fatal(err)
		}
		c := seqcache.New(store, func(o *seqcache.Options) {
			o.MeterProvider = mp
			o.Logger = slog.New(slog.DiscardHandler)
			o.MinBlock, o.MaxBlock = 100, 100
		})
		defer c.Close()
		h := c.Handle(seq)
		for i := int64(1); i <= 150; i++ {
			v, err := h.Next(context.Background())
			if err != nil || v != i {
				t.Fatalf("call %d: %d, %v; want %d", i, v, err, i)
			}
		}
		synctest.Wait()
		st := h.Stats()
		r := collect(t, reader)
		recovered := must[int64](t, "recovered")(r.int("seqshim.values.recovered", seq, ""))
		if recovered != 100 || st.Recovered != 100 || st.Recoveries != 1 {
			t.Errorf("recovered = %d; Stats: %d values in %d blocks; want 100 in 1", recovered, st.Recovered, st.Recoveries)
		}
		if n, _ := r.int("seqshim.store.errors", seq, "RequestTimeout"); n != 1 || st.StoreErrors != 1 {
			t.Errorf("store.errors{RequestTimeout} = %d, Stats %d; want 1 (the lost answer)", n, st.StoreErrors)
		}
		if reserved, _ := r.int("seqshim.values.reserved", seq, ""); reserved != st.Reserved || reserved < 200 {
			t.Errorf("reserved = %d; Stats %d; want at least 200, the recovered block included", reserved, st.Reserved)
		}
	})
}
