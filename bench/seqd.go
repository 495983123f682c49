package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/seqd"
	"github.com/seqshim/seqshim/seqdstore"
	"github.com/seqshim/seqshim/sequence"
)

// throughService is a client's hot path with the sequence service in
// between — seqcache.Cache over the client store (seqdstore), a seqd server
// on loopback with its own cache over memstore — against the same cache
// over memstore directly. Both serve Next from the client's cache; the row
// shows that the service changes nothing there (the refills, in the
// background, go to the server instead of the store).
func throughService(ctx context.Context, rounds int) (row, error) {
	direct := memstore.New()
	behind := memstore.New()
	spec := sequence.DefaultSpec()
	for _, st := range []*memstore.Store{direct, behind} {
		if err := st.Create(ctx, "hot", spec, spec.Initial()); err != nil {
			return row{}, err
		}
	}
	srv, err := seqd.New(seqd.Config{Store: behind, Open: true})
	if err != nil {
		return row{}, err
	}
	hs := httptest.NewServer(srv.Handler())
	defer func() {
		hs.Close()
		_ = srv.Close()
	}()
	client, err := seqdstore.Open(ctx, "seqd+http://"+strings.TrimPrefix(hs.URL, "http://"))
	if err != nil {
		return row{}, err
	}
	defer client.Close()
	viaService, viaStore := seqcache.New(client), seqcache.New(direct)
	defer viaService.Close()
	defer viaStore.Close()
	hService, hStore := viaService.Handle("hot"), viaStore.Handle("hot")
	var failed atomic.Value
	loop := func(h *seqcache.Handle) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Next(ctx); err != nil {
					failed.Store(err)
				}
			}
		}
	}
	r := row{Name: "client nextval through the service", Subject: "seqcache over seqdstore → seqd → memstore",
		Baseline: "seqcache over memstore", Samples: fmt.Sprintf("%d rounds", rounds),
		Note: "one goroutine; both from the client's cache (refills in the background)"}
	for i := range rounds {
		var s, d testing.BenchmarkResult
		if i%2 == 0 {
			s, d = testing.Benchmark(loop(hService)), testing.Benchmark(loop(hStore))
		} else {
			d, s = testing.Benchmark(loop(hStore)), testing.Benchmark(loop(hService))
		}
		r.SubjectNs = append(r.SubjectNs, nsPerOp(s))
		r.BaselineNs = append(r.BaselineNs, nsPerOp(d))
		r.SubjectAllocs = max(r.SubjectAllocs, float64(s.AllocsPerOp()))
	}
	if err, _ := failed.Load().(error); err != nil {
		return row{}, fmt.Errorf("through the service: %w", err)
	}
	return r, nil
}
