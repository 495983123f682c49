package otel_test

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seqshim/seqshim/seqcache"
)

const seq = "orders_seq"

// must fails the test when a reading has no data point.
func must[T any](t *testing.T, what string) func(T, bool) T {
	t.Helper()
	return func(v T, ok bool) T {
		t.Helper()
		if !ok {
			t.Fatalf("%s: no data point", what)
		}
		return v
	}
}

// A steady workload of 2,500 calls at 1,000 a second: every instrument, read
// through the SDK's ManualReader, agrees with what the workload did and
// with the cache's own Stats; then an Invalidate shows in wasted and Close
// in released.
func TestMetricsWorkload(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp, reader := newProvider(t)
		store := newFlakyStore(t, seq)
		c := seqcache.New(store, func(o *seqcache.Options) {
			o.MeterProvider = mp
			o.Logger = slog.New(slog.DiscardHandler)
			o.MinBlock, o.MaxBlock = 1000, 1000
		})
		defer c.Close()
		h := c.Handle(seq)
		ctx := context.Background()
		const calls = 2500
		for range calls {
			if _, err := h.Next(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond)
		}
		synctest.Wait()

		st := h.Stats()
		r := collect(t, reader)
		for _, name := range instrumentNames {
			if _, ok := r[name]; !ok && name != "seqshim.store.errors" { // no error, no series
				t.Errorf("instrument %s not reported", name)
			}
		}
		served := must[int64](t, "served")(r.int("seqshim.values.served", seq, ""))
		reserved := must[int64](t, "reserved")(r.int("seqshim.values.reserved", seq, ""))
		remaining := must[int64](t, "remaining")(r.int("seqshim.cache.remaining", seq, ""))
		if served != calls {
			t.Errorf("served = %d, want the %d calls made", served, calls)
		}
		if reserved-served != remaining {
			t.Errorf("reserved %d − served %d = %d, want remaining %d", reserved, served, reserved-served, remaining)
		}
		if reserved != st.Reserved || remaining != st.Depth {
			t.Errorf("reserved %d, remaining %d; Stats say %d, %d", reserved, remaining, st.Reserved, st.Depth)
		}
		if n, sum := r.hist("seqshim.block.size", seq, ""); n != uint64(st.Reservations) || int64(sum) != st.Reserved {
			t.Errorf("block.size: %d blocks, %v values; Stats: %d blocks, %d values", n, sum, st.Reservations, st.Reserved)
		}
		if n, _ := r.hist("seqshim.refill.duration", seq, ""); n != uint64(store.calls.Load()) || n != uint64(st.Reservations) {
			t.Errorf("refill.duration: %d store calls; the store saw %d, Stats say %d blocks", n, store.calls.Load(), st.Reservations)
		}
		if n, _ := r.hist("seqshim.wait.duration", seq, anyErr); n != uint64(st.Waits) || n != 1 {
			t.Errorf("wait.duration: %d waits; Stats say %d, want 1 (the first block)", n, st.Waits)
		}
		// 1,000 values a second since the first block: the runway is
		// remaining / 1000 seconds.
		runway := must[float64](t, "runway")(r.float("seqshim.cache.runway", seq))
		if want := float64(remaining) / 1000; math.Abs(runway-want) > want/100 {
			t.Errorf("runway = %.3fs, want %.3fs (%d values at 1000/s)", runway, want, remaining)
		}
		for _, name := range []string{"seqshim.values.wasted", "seqshim.values.released"} {
			if n := must[int64](t, name)(r.int(name, seq, "")); n != 0 {
				t.Errorf("%s = %d, want 0", name, n)
			}
		}

		c.Invalidate(seq)
		st = h.Stats()
		r = collect(t, reader)
		wasted := must[int64](t, "wasted")(r.int("seqshim.values.wasted", seq, ""))
		if wasted != remaining || wasted != st.Wasted {
			t.Errorf("wasted = %d after Invalidate, want the %d values cached (Stats: %d)", wasted, remaining, st.Wasted)
		}
		served, _ = r.int("seqshim.values.served", seq, "")
		reserved, _ = r.int("seqshim.values.reserved", seq, "")
		remaining, _ = r.int("seqshim.cache.remaining", seq, "")
		if reserved-served != remaining+wasted {
			t.Errorf("reserved %d − served %d, want remaining %d + wasted %d", reserved, served, remaining, wasted)
		}

		for range 10 {
			if _, err := h.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		st = h.Stats()
		r = collect(t, reader)
		released := must[int64](t, "released")(r.int("seqshim.values.released", seq, ""))
		if released != st.Released || released < 990 {
			t.Errorf("released = %d after Close; Stats say %d, want at least 990", released, st.Released)
		}
		if _, ok := r.int("seqshim.values.served", seq, ""); ok {
			t.Error("served still reported after Close")
		}
	})
}

// A store outage shows in store.errors (with the store's error.type), in
// refill.duration's failed calls, in wait.duration's callers that got no
// value, and in the logs: one WARN, one ERROR, one INFO naming the sequence,
// the store and the error.
func TestMetricsOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mp, reader := newProvider(t)
		store := newFlakyStore(t, seq)
		logs := &recorder{}
		c := seqcache.New(store, func(o *seqcache.Options) {
			o.MeterProvider = mp
			o.Logger = slog.New(logs)
			o.StoreName = "flaky://test"
			o.MinBlock, o.MaxBlock = 100, 100
			o.MaxWait = 3 * time.Second // longer than the longest retry backoff (2s)
		})
		defer c.Close()
		h := c.Handle(seq)
		ctx := context.Background()
		if _, err := h.Next(ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()

		store.down.Store(true)
		const unserved = 2
		for failed := 0; failed < unserved; {
			if _, err := h.Next(ctx); err != nil {
				if !errors.Is(err, seqcache.ErrUnavailable) || !errors.Is(err, errUnavailable) {
					t.Fatalf("Next in the outage: %v, want ErrUnavailable wrapping the store's error", err)
				}
				failed++
			}
		}
		store.down.Store(false)
		if _, err := h.Next(ctx); err != nil {
			t.Fatalf("after the outage: %v", err)
		}
		synctest.Wait()

		st := h.Stats()
		r := collect(t, reader)
		if st.StoreErrors < 2 {
			t.Fatalf("Stats.StoreErrors = %d: the outage should have failed several refills", st.StoreErrors)
		}
		if n, _ := r.int("seqshim.store.errors", seq, "ServiceUnavailable"); n != st.StoreErrors {
			t.Errorf("store.errors{error.type=ServiceUnavailable} = %d, want %d", n, st.StoreErrors)
		}
		failedCalls, _ := r.hist("seqshim.refill.duration", seq, "ServiceUnavailable")
		okCalls, _ := r.hist("seqshim.refill.duration", seq, "")
		if failedCalls != uint64(st.StoreErrors) || okCalls != uint64(st.Reservations) || int64(failedCalls+okCalls) != store.calls.Load() {
			t.Errorf("refill.duration: %d failed, %d ok; want %d, %d (%d store calls)", failedCalls, okCalls, st.StoreErrors, st.Reservations, store.calls.Load())
		}
		n, sum := r.hist("seqshim.wait.duration", seq, "unavailable")
		if n != unserved || sum != unserved*3 {
			t.Errorf("wait.duration{error.type=unavailable}: %d waits, %vs; want %d, %ds (MaxWait each)", n, sum, unserved, unserved*3)
		}
		if n, _ := r.hist("seqshim.wait.duration", seq, ""); n != uint64(st.Waits-unserved) {
			t.Errorf("wait.duration without error: %d, want %d", n, st.Waits-unserved)
		}

		lines := logs.lines()
		if len(lines) != 3 {
			t.Fatalf("logs: %d lines, want WARN, ERROR, INFO: %+v", len(lines), lines)
		}
		for i, want := range []slog.Level{slog.LevelWarn, slog.LevelError, slog.LevelInfo} {
			l := lines[i]
			if l.Level != want || l.Attrs["seqshim.sequence"] != seq || l.Attrs["seqshim.store"] != "flaky://test" {
				t.Errorf("line %d = %+v, want %v naming %s and flaky://test", i, l, want, seq)
			}
			if want != slog.LevelInfo && !strings.Contains(l.Attrs["error"], "ServiceUnavailable") {
				t.Errorf("line %d = %+v: the error is not named", i, l)
			}
		}
		if got := lines[2].Attrs["unserved_calls"]; got != "2" {
			t.Errorf("INFO unserved_calls = %s, want 2", got)
		}
	})
}
