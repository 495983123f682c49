package torture

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// DrawOptions configure [Draw].
type DrawOptions struct {
	Goroutines int           // default 1
	Pace       time.Duration // mean pause between one goroutine's calls (uniform in [0, 2×Pace]); 0: none
	ErrorPause time.Duration // pause after a failed call; default 10ms
	Flush      time.Duration // how often the record is flushed; default 10ms
}

// Draw calls next from opts.Goroutines goroutines until ctx ends, recording
// every value right after next returned it, and every error. It flushes rec
// every opts.Flush and once more before returning; it returns the number of
// values and errors.
func Draw(ctx context.Context, rec *Recorder, opts DrawOptions, next func(ctx context.Context) (int64, error)) (values, errs int64) {
	opts.Goroutines = max(opts.Goroutines, 1)
	if opts.ErrorPause <= 0 {
		opts.ErrorPause = 10 * time.Millisecond
	}
	if opts.Flush <= 0 {
		opts.Flush = 10 * time.Millisecond
	}
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	flushDone := make(chan struct{})
	go func() {
		defer close(flushDone)
		t := time.NewTicker(opts.Flush)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				rec.Flush()
			}
		}
	}()
	for g := range opts.Goroutines {
		wg.Go(func() {
			var nv, ne int64
			defer func() {
				mu.Lock()
				values += nv
				errs += ne
				mu.Unlock()
			}()
			for ctx.Err() == nil {
				start := rec.Now()
				v, err := next(ctx)
				end := rec.Now()
				if err != nil {
					if ctx.Err() != nil {
						return // stopping: not the store's failure
					}
					ne++
					rec.Error(g, err)
					sleep(ctx, opts.ErrorPause)
					continue
				}
				rec.Value(g, start, end, v)
				nv++
				if opts.Pace > 0 {
					sleep(ctx, rand.N(2*opts.Pace+1))
				}
			}
		})
	}
	wg.Wait()
	<-flushDone
	rec.Flush()
	return values, errs
}

func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
