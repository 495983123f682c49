package dynamostore_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/seqshim/seqshim/dynamostore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// BenchmarkReserve measures one Reserve of 1000 values against dynalite:
// the common case, one conditional UpdateItem. p50 and p99 are reported
// alongside ns/op. dynalite runs in Node on the same machine: the figures
// show the store's overhead, not DynamoDB's latency.
func BenchmarkReserve(b *testing.B) {
	for _, bc := range []struct {
		name   string
		clause sequence.Clauses
		n      int64
	}{
		// Fast path: one UpdateItem.
		{"fast", sequence.Clauses{}, 1000},
		// A CYCLE sequence of 10 values: every block reaches MAXVALUE, so
		// every reservation is a consistent read and a compare-and-set.
		{"cas", sequence.Clauses{MaxValue: sequence.Int64(10), Cycle: sequence.Bool(true)}, 1000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			st := testStore(b)
			ctx := context.Background()
			spec, pos, _ := bc.clause.Create()
			if err := st.Create(ctx, "s", spec, pos); err != nil {
				b.Fatal(err)
			}
			if _, err := st.Reserve(ctx, "s", bc.n); err != nil { // warm the Store's state
				b.Fatal(err)
			}
			var lat []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				if _, err := st.Reserve(ctx, "s", bc.n); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// TestCacheWrites hands out 1,000,000 values of a sequence through a
// seqcache.Cache at a steady 10,000 values/s of simulated time
// (testing/synctest; the store is the real dynalite, reached over a
// connection per request so the bubble can idle between requests, and a
// round trip takes no simulated time) and checks how many store writes that
// took against a bound derived from the cache's sizing policy. It also
// checks that values strictly increase, as they must in one process, and
// that the blocks received tile the values handed out.
func TestCacheWrites(t *testing.T) {
	const (
		total    = 1_000_000
		rate     = 10_000 // values per second
		tick     = 10 * time.Millisecond
		perTick  = rate * int(tick) / int(time.Second)
		duration = time.Duration(total/rate) * time.Second
	)
	table := testTable(t)
	synctest.Test(t, func(t *testing.T) {
		hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		st := dynamostore.New(testClient(t, func(o *dynamodb.Options) { o.HTTPClient = hc }), table)
		spec := sequence.DefaultSpec()
		ctx := context.Background()
		if err := st.Create(ctx, "s", spec, spec.Initial()); err != nil {
			t.Fatal(err)
		}
		var log blockLog
		cache := seqcache.New(recorder{Store: st, log: &log})
		h := cache.Handle("s")
		start := time.Now()
		prev := spec.Start - 1
		var writes10s int
		for i := 0; i < total; {
			time.Sleep(tick)
			for range perTick {
				v, err := h.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if v <= prev {
					t.Fatalf("value %d after %d", v, prev)
				}
				prev = v
				i++
			}
			if time.Since(start) == 10*time.Second {
				writes10s = len(log.blocks)
			}
		}
		elapsed := time.Since(start)
		stats := h.Stats()
		opts := cache.Options()
		if err := cache.Close(); err != nil {
			t.Fatal(err)
		}
		checkTiling(t, spec, log.blocks, nil)
		var sizes []int64
		for _, b := range log.blocks[:min(6, len(log.blocks))] {
			sizes = append(sizes, b.Count)
		}
		t.Logf("%d values in %v simulated (%d/s): %d store writes (%d in the first 10 s), %d releases at Close; rate %.0f/s; first block sizes %v, last %d",
			total, elapsed, rate, len(log.blocks), writes10s, len(log.released), stats.Rate, sizes, log.blocks[len(log.blocks)-1].Count)
		if elapsed != duration {
			t.Fatalf("simulated %v, want %v", elapsed, duration)
		}

		// The bound on store writes (reservations; the releases at Close
		// are logged apart) follows from the cache's sizing policy, with
		// the default Options read back from the cache:
		//   - a block covers one Sample (1 s) of consumption at the measured
		//     rate: 10,000 values, so 1,000,000 values take 100 blocks;
		//   - the cache keeps Buffer (10 s) of consumption ahead: filling it
		//     once reserves 100,000 values more, 10 blocks;
		//   - during the first Sample the rate reads low (it is counted over
		//     at least one Sample), so blocks are smaller, but never below
		//     MinBlock (1,000): the 10,000 values of that second take at
		//     most 10 blocks.
		// That is 120 writes per million values (115 observed). The bound
		// is a quarter more, 150, so that a rate read a little low passes
		// (blocks of 8,000 values make about 147), while a cache that asked
		// for MinBlock values each time (about 1,100 writes), sized blocks
		// for half a second (about 220) or went on reserving once the buffer
		// was full fails. The count does not depend on the machine's speed
		// or load: values are drawn on a schedule of simulated time, in which
		// a round trip to dynalite takes none; no timing is asserted.
		perBlock := float64(rate) * opts.Sample.Seconds()
		steady := float64(total) / perBlock
		buffer := float64(rate) * opts.Buffer.Seconds() / perBlock
		rampUp := float64(rate) * opts.Sample.Seconds() / float64(opts.MinBlock)
		bound := 1.25 * (steady + buffer + rampUp) * 1e6 / float64(total)
		if perMillion := float64(len(log.blocks)) * 1e6 / float64(total); perMillion > bound {
			t.Errorf("%.0f store writes per 1,000,000 values, want at most %.0f (blocks of about %.0f values, a %v buffer)",
				perMillion, bound, perBlock, opts.Buffer)
		}
	})
}

// TestMeasureCacheWrites measures how many store writes a seqcache.Cache
// makes per 1,000,000 values handed out at a steady 10,000 values/s, in real
// time (set SEQSHIM_MEASURE=1; it runs for about 20 s): the count over the
// last half of the run, after the rate window has filled enough to size
// blocks, is extrapolated to 1,000,000 values. It logs the figure; the only
// assertion is that every value is distinct.
func TestMeasureCacheWrites(t *testing.T) {
	if os.Getenv("SEQSHIM_MEASURE") != "1" {
		t.Skip("a 20 s real-time measurement: set SEQSHIM_MEASURE=1")
	}
	const (
		rate     = 10_000 // values per second
		duration = 20 * time.Second
		tick     = 10 * time.Millisecond
	)
	client := testClient(t)
	table := testTable(t)
	st := dynamostore.New(client, table)
	spec := sequence.DefaultSpec()
	if err := st.Create(t.Context(), "s", spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	var log blockLog
	cache := seqcache.New(recorder{Store: st, log: &log})
	defer cache.Close()
	h := cache.Handle("s")

	seen := make(map[int64]bool, rate*int(duration/time.Second))
	start := time.Now()
	half := start.Add(duration / 2)
	var writesAtHalf, servedAtHalf int
	tk := time.NewTicker(tick)
	defer tk.Stop()
	for now := range tk.C {
		if now.Sub(start) >= duration {
			break
		}
		if writesAtHalf == 0 && now.After(half) {
			log.mu.Lock()
			writesAtHalf, servedAtHalf = len(log.blocks), len(seen)
			log.mu.Unlock()
		}
		// Catch up with the schedule: rate values per second of wall time.
		due := int(float64(rate) * now.Sub(start).Seconds())
		for len(seen) < due {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			v, err := h.Next(ctx)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if seen[v] {
				t.Fatalf("value %d handed out twice", v)
			}
			seen[v] = true
		}
	}
	log.mu.Lock()
	writes := len(log.blocks)
	log.mu.Unlock()
	steadyWrites, steadyValues := writes-writesAtHalf, len(seen)-servedAtHalf
	stats := h.Stats()
	t.Logf("%d values in %v: %d store writes (reservations) in all; last half: %d writes for %d values = %.1f writes per 1,000,000 values; rate %.0f/s, depth %d",
		len(seen), duration, writes, steadyWrites, steadyValues,
		float64(steadyWrites)/float64(steadyValues)*1e6, stats.Rate, stats.Depth)
}
