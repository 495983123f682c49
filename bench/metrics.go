package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/seqshim/seqshim/seqcache"
)

// collectEvery is how often hotPathCollected collects the cache's metrics:
// a thousand times more often than a usual scrape.
const collectEvery = 10 * time.Millisecond

// hotPathCollected is the cache hot path while a MeterProvider collects the
// cache's metrics: Handle.Next calls no metric API, and each collection
// runs the cache's callback, which reads every sequence's counters under
// its lock and the active block's cursor, the word Next adds to.
func hotPathCollected(ctx context.Context, rounds int) (row, error) {
	p := &collectingProvider{}
	stop := p.collect(collectEvery)
	r, err := hotPath(ctx, rounds, false, func(o *seqcache.Options) { o.MeterProvider = p })
	n := stop()
	if err != nil {
		return row{}, err
	}
	if n == 0 {
		return row{}, errors.New("hot path: the metrics were never collected")
	}
	r.Name = "cache hot path, metrics collected"
	r.Note = fmt.Sprintf("one goroutine, while a MeterProvider collects the cache's metrics every %v (%d collections)", collectEvery, n)
	return r, nil
}

// collectingProvider is a MeterProvider that does what an SDK's reader does
// to the cache at each collection — run the callbacks registered — and
// nothing else: the OpenTelemetry SDK stays out of seqshim's go.mod. (With
// the SDK itself: BenchmarkNext in integration/otel.) Its synchronous
// instruments are no-ops; the cache records those on slow paths only.
type collectingProvider struct {
	embedded.MeterProvider

	mu        sync.Mutex // protects callbacks
	callbacks []metric.Callback
}

func (p *collectingProvider) Meter(string, ...metric.MeterOption) metric.Meter {
	return collectingMeter{p: p}
}

// collect runs the callbacks every period until the returned function is
// called; that function returns how many collections ran.
func (p *collectingProvider) collect(period time.Duration) (stop func() int) {
	done := make(chan struct{})
	var n int
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.runCallbacks()
				n++
			}
		}
	}()
	return func() int {
		close(done)
		wg.Wait()
		return n
	}
}

func (p *collectingProvider) runCallbacks() {
	p.mu.Lock()
	cbs := append([]metric.Callback(nil), p.callbacks...)
	p.mu.Unlock()
	var o sumObserver
	for _, cb := range cbs {
		cb(context.Background(), &o)
	}
}

// collectingMeter is a no-op Meter whose RegisterCallback keeps the callback.
type collectingMeter struct {
	noop.Meter
	p *collectingProvider
}

func (m collectingMeter) RegisterCallback(f metric.Callback, _ ...metric.Observable) (metric.Registration, error) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	m.p.callbacks = append(m.p.callbacks, f)
	return registration{}, nil
}

type registration struct{ embedded.Registration }

func (registration) Unregister() error { return nil }

// sumObserver adds up what it observes, so the observations are not
// optimised away.
type sumObserver struct {
	embedded.Observer
	sum float64
}

func (o *sumObserver) ObserveFloat64(_ metric.Float64Observable, v float64, _ ...metric.ObserveOption) {
	o.sum += v
}

func (o *sumObserver) ObserveInt64(_ metric.Int64Observable, v int64, _ ...metric.ObserveOption) {
	o.sum += float64(v)
}
