package seqcache

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// The fleet simulation: thousands of processes, each with its own Cache,
// drawing one sequence from a model of one DynamoDB item. It runs in
// simulated time (testing/synctest), so a few minutes of a fleet take
// seconds.

// dynamoModel is one DynamoDB item seen by many clients: a per-item write
// limit (a token bucket of limit writes a second, holding at most a
// second's worth), requests beyond it refused with a throttling error, and
// round trips of DynamoDB's latency (see dynamoLatency). It computes blocks
// with sequence.Spec.Reserve like every store.
type dynamoModel struct {
	limit float64 // writes per second

	mu        sync.Mutex // protects the fields below
	spec      sequence.Spec
	pos       sequence.Position
	tokens    float64
	refilled  time.Time // when tokens was last topped up
	writes    int64     // reservations made
	throttled int64     // calls refused
}

func newDynamoModel(limit float64) *dynamoModel {
	spec := sequence.DefaultSpec()
	return &dynamoModel{limit: limit, spec: spec, pos: spec.Initial(), tokens: limit, refilled: time.Now()}
}

// counts returns the writes made and the calls refused so far.
func (m *dynamoModel) counts() (writes, throttled int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.writes, m.throttled
}

// apply is the item's answer to one UpdateItem arriving now.
func (m *dynamoModel) apply(name string, n int64) (sequence.Block, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.tokens = min(m.limit, m.tokens+now.Sub(m.refilled).Seconds()*m.limit)
	m.refilled = now
	if m.tokens < 1 {
		m.throttled++
		return sequence.Block{}, sequence.Throttled(fmt.Errorf("dynamo model: reserve %s: %w", name, apiError("ThrottlingException")))
	}
	m.tokens--
	b, pos, err := m.spec.Reserve(name, m.pos, n)
	if err != nil {
		return sequence.Block{}, err
	}
	m.pos = pos
	m.writes++
	return b, nil
}

// apiError has the ErrorCode method of DynamoDB's errors.
type apiError string

func (e apiError) Error() string {
	return string(e) + ": the request rate for the item exceeds its throughput"
}
func (e apiError) ErrorCode() string { return string(e) }

// dynamoLatency draws a DynamoDB round trip: log-normal, median 5 ms, 99th
// percentile 50 ms.
func dynamoLatency(rng *rand.Rand) time.Duration {
	const median, p99 = 5 * time.Millisecond, 50 * time.Millisecond
	sigma := math.Log(float64(p99)/float64(median)) / 2.326
	return time.Duration(float64(median) * math.Exp(sigma*rng.NormFloat64()))
}

// dynamoClient is one process's client of the model, with its own
// deterministic stream of latencies.
type dynamoClient struct {
	m   *dynamoModel
	mu  sync.Mutex // protects rng
	rng *rand.Rand
}

func (c *dynamoClient) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	c.mu.Lock()
	there, back := dynamoLatency(c.rng)/2, dynamoLatency(c.rng)/2
	c.mu.Unlock()
	if err := sleepCtx(ctx, there); err != nil {
		return sequence.Block{}, err
	}
	b, err := c.m.apply(name, n)
	if err := sleepCtx(ctx, back); err != nil {
		return sequence.Block{}, err // the answer is lost: a gap
	}
	return b, err
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// takeFast takes up to n values from h's active block as n calls of Next
// inside the block would (one atomic step for the lot, a refill started
// when the trigger is passed), and returns how many it could not take: the
// block is used up, and Next's slow path must run.
func takeFast(h *Handle, n int64) int64 {
	for n > 0 {
		b := h.active.Load()
		i := b.next.Load()
		if i >= b.Count {
			return n
		}
		k := min(n, b.Count-i)
		if !b.next.CompareAndSwap(i, i+k) {
			continue
		}
		n -= k
		if i+k-1 >= b.trigger.Load() && !h.refilling.Load() {
			h.kick()
		}
	}
	return 0
}

// fleetTally are the counts of a fleet simulation.
type fleetTally struct {
	values, waits, coldWaits, failed atomic.Int64 // after warm-up
	allWaits, allFailed              atomic.Int64 // the whole run
}

// simProc is one process of the fleet.
type simProc struct {
	c      *Cache
	h      *Handle
	warmAt time.Time   // its cold start is over: waits from then count
	busy   atomic.Bool // a batch is waiting for a block
}

// draw takes n values; what the active block cannot give is taken by a
// goroutine of its own through Next, which may wait for the store, while
// the other processes go on.
func (p *simProc) draw(n int64, measuring bool, tally *fleetTally) {
	if p.busy.Load() {
		return // still waiting with its last batch: that wait is counted
	}
	rest := takeFast(p.h, n)
	if measuring {
		tally.values.Add(n - rest)
	}
	if rest == 0 {
		return
	}
	p.busy.Store(true)
	go func() {
		defer p.busy.Store(false)
		for rest > 0 {
			start := time.Now()
			_, err := p.h.Next(context.Background())
			waited := time.Since(start) > 0
			if waited {
				tally.allWaits.Add(1)
			}
			if err != nil {
				tally.allFailed.Add(1)
			}
			if measuring {
				switch {
				case err != nil:
					tally.failed.Add(1)
				case waited && start.Before(p.warmAt):
					tally.coldWaits.Add(1)
				case waited:
					tally.waits.Add(1)
				}
				if err == nil {
					tally.values.Add(1)
				}
			}
			rest--
			if err != nil {
				continue
			}
			left := takeFast(p.h, rest)
			if measuring {
				tally.values.Add(rest - left)
			}
			rest = left
		}
	}()
}

// fleetScenario is one simulated fleet.
type fleetScenario struct {
	procs    int     // processes at any time
	rate     float64 // values per second, the fleet's total
	joinRate int     // processes starting a second at first; 0: fleetJoinRate
	// servers, if not 0, puts the sequence service between the processes
	// and the store: that many servers, each a Cache over the store, and
	// each process's Cache reserving from one of them (see serverClient).
	servers int
}

// name is the subtest's name of sc.
func (sc fleetScenario) name() string {
	name := fmt.Sprintf("%dprocs", sc.procs)
	if sc.joinRate != 0 {
		name += fmt.Sprintf("_start%d", sc.joinRate)
	}
	if sc.servers > 0 {
		name += fmt.Sprintf("_%dservers", sc.servers)
	}
	return fmt.Sprintf("%s_%.0fvps", name, sc.rate)
}

// fleetResult is what a scenario measured after its warm-up.
type fleetResult struct {
	valuesPerSec, writesPerSec  float64
	throttled, throttledWarm    int64 // calls refused: in all, after warm-up
	waits, coldWaits, failed    int64 // after warm-up
	allWaits, allFailed         int64
	valuesPerWrite              float64
	joined, left                int
	leaversMeasured             int64   // processes that left after warm-up
	wastePerLeaver, maxSpanSecs float64 // values lost by each; the longest span at the end
	wasteShare                  float64 // values lost by leavers per value drawn, after warm-up
	warm                        time.Duration
	// With servers: the processes' calls to them a second, and the Takes
	// that waited for a server's refill, after warm-up.
	serverCallsPerSec float64
	serverWaits       int64
}

// summary is the "fleet:" line of sc's result r.
func (r fleetResult) summary(sc fleetScenario) string {
	procs := fmt.Sprintf("%d processes", sc.procs)
	if sc.servers > 0 {
		procs += fmt.Sprintf(" through %d servers", sc.servers)
	}
	warm := fmt.Sprintf("after a %v warm-up", r.warm)
	if sc.joinRate != 0 {
		warm += fmt.Sprintf(", %d starting a second", sc.joinRate)
	}
	line := fmt.Sprintf("fleet: %s, %.0f values/s (%s), store writes %.0f/s, limit %d/s, throttled calls %d (%d after warm-up), caller waits after warm-up %d (cold starts %d), failed calls %d, %.0f values per write, waste %.0f values per leaver (%d left; %.3f%% of values), longest span %.0fs; whole run: %d waits, %d failed",
		procs, r.valuesPerSec, warm, r.writesPerSec, fleetLimit, r.throttled, r.throttledWarm, r.waits, r.coldWaits, r.failed,
		r.valuesPerWrite, r.wastePerLeaver, r.leaversMeasured, 100*r.wasteShare, r.maxSpanSecs, r.allWaits, r.allFailed)
	if sc.servers > 0 {
		line += fmt.Sprintf("; servers after warm-up: %.0f calls/s from the processes, %d waited for a block", r.serverCallsPerSec, r.serverWaits)
	}
	return line
}

var quietLogger = slog.New(slog.DiscardHandler)

// Timing of a fleet simulation, in simulated time.
const (
	fleetTick     = 200 * time.Millisecond // processes draw a batch per tick
	fleetJoinRate = 200                    // the first processes join at this many a second (a rolling start)
	fleetSettle   = 15 * time.Second       // then the fleet settles (the warm-up ends) for this long
	fleetMeasure  = 25 * time.Second       // and is measured for this long
	fleetColdFor  = 2 * time.Second        // a joiner's cold start: its first blocks
	fleetChurn    = 1000                   // each second, one process in fleetChurn leaves and another joins
	fleetLimit    = 1000                   // the item's writes per second
)

// runFleet simulates sc; call it inside a synctest bubble.
func runFleet(t *testing.T, sc fleetScenario) fleetResult {
	model := newDynamoModel(fleetLimit)
	start := time.Now()
	var (
		tally       fleetTally
		seed        uint64
		procs       []*simProc
		closed      sync.WaitGroup
		res         fleetResult
		wasted      atomic.Int64
		serverCalls atomic.Int64
	)
	servers := make([]*Cache, sc.servers)
	for i := range servers {
		// A server of the sequence service: its own Cache, with the
		// defaults (seqd.Config.Cache left zero), over the item.
		client := &dynamoClient{m: model, rng: rand.New(rand.NewPCG(uint64(i), 0x5e7e7))}
		servers[i] = New(client, func(o *Options) { o.Logger = quietLogger })
	}
	join := func() {
		seed++
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		var store sequence.Reserver = &dynamoClient{m: model, rng: rng}
		if len(servers) > 0 {
			// Round-robin, as a load balancer spreads new connections.
			store = &serverClient{srv: servers[res.joined%len(servers)], rng: rng, calls: &serverCalls}
		}
		c := New(store, func(o *Options) { o.Logger = quietLogger })
		p := &simProc{c: c, h: c.Handle("s"), warmAt: time.Now().Add(fleetColdFor)}
		procs = append(procs, p)
		res.joined++
	}
	var leaversMeasured int64
	leave := func(i int, measuring bool) {
		p := procs[i]
		procs[i] = procs[len(procs)-1]
		procs = procs[:len(procs)-1]
		res.left++
		if measuring {
			leaversMeasured++
		}
		closed.Go(func() {
			// Close hands nothing back to this store: what the process held
			// is lost, as when it is killed.
			p.c.Close()
			if measuring {
				wasted.Add(p.h.Stats().Wasted)
			}
		})
	}
	perTick := int64(sc.rate * fleetTick.Seconds() / float64(sc.procs))
	if float64(perTick)*float64(sc.procs) != sc.rate*fleetTick.Seconds() {
		t.Fatalf("%v values/s over %d processes is not a whole number of values per tick", sc.rate, sc.procs)
	}
	joinRate := sc.joinRate
	if joinRate == 0 {
		joinRate = fleetJoinRate
	}
	joinPerTick := int(float64(joinRate) * fleetTick.Seconds())
	fleetJoin := time.Duration(sc.procs/joinPerTick) * fleetTick
	fleetWarm := fleetJoin + fleetSettle
	ticksPerSec := int(time.Second / fleetTick)
	churn := max(sc.procs/fleetChurn, 1)
	order := rand.New(rand.NewPCG(0xf1ee7, 0))
	var writes0, throttled0, serverCalls0, serverWaits0 int64
	for tick := 0; ; tick++ {
		now := time.Since(start)
		if now >= fleetWarm+fleetMeasure {
			break
		}
		measuring := now >= fleetWarm
		if measuring && writes0 == 0 {
			writes0, throttled0 = model.counts()
			serverCalls0, serverWaits0 = serverCalls.Load(), serverWaits(servers)
		}
		switch {
		case len(procs) < sc.procs && res.left == 0:
			for range min(joinPerTick, sc.procs-len(procs)) {
				join()
			}
		case tick%ticksPerSec == 0:
			for range churn {
				leave(order.IntN(len(procs)), measuring)
				join()
			}
		}
		for _, p := range procs {
			p.draw(perTick, measuring, &tally)
		}
		time.Sleep(fleetTick)
	}
	writes, throttled := model.counts()
	res.warm = fleetWarm
	res.valuesPerSec = float64(tally.values.Load()) / fleetMeasure.Seconds()
	res.writesPerSec = float64(writes-writes0) / fleetMeasure.Seconds()
	res.throttled, res.throttledWarm = throttled, throttled-throttled0
	res.waits, res.coldWaits, res.failed = tally.waits.Load(), tally.coldWaits.Load(), tally.failed.Load()
	res.serverCallsPerSec = float64(serverCalls.Load()-serverCalls0) / fleetMeasure.Seconds()
	res.serverWaits = serverWaits(servers) - serverWaits0
	for _, p := range procs {
		res.maxSpanSecs = max(res.maxSpanSecs, p.h.Stats().Span.Seconds())
	}
	for len(procs) > 0 {
		leave(len(procs)-1, false) // the end of the simulation, not of the processes
	}
	closed.Wait()
	for _, s := range servers {
		s.Close()
	}
	res.allWaits, res.allFailed = tally.allWaits.Load(), tally.allFailed.Load()
	res.valuesPerWrite = float64(tally.values.Load()) / float64(writes-writes0)
	res.leaversMeasured = leaversMeasured
	if leaversMeasured > 0 {
		res.wastePerLeaver = float64(wasted.Load()) / float64(leaversMeasured)
	}
	res.wasteShare = float64(wasted.Load()) / float64(tally.values.Load())
	return res
}

// TestFleet simulates fleets of 1,000 to 10,000 processes drawing one
// sequence at 100,000 to 10,000,000 values/s in all from one DynamoDB item
// (1,000 writes/s, throttled beyond; p50 5 ms, p99 50 ms). The processes
// start 200 a second, the fleet settles for 15 s (the warm-up), then for
// 25 s, while one process in 1,000 leaves each second and another joins: no
// caller waits (but in a joiner's first 2 s, its cold start, covered by
// TestColdStart), no call fails, and the store's writes stay at most 80% of
// its limit. Then the same item behind the sequence service, 10 servers
// (testFleetService). With -v, one line per scenario starting "fleet:".
func TestFleet(t *testing.T) {
	for _, sc := range []fleetScenario{
		{procs: 1000, rate: 100_000},
		{procs: 1000, rate: 1_000_000},
		{procs: 1000, rate: 10_000_000},
		{procs: 10_000, rate: 10_000_000},
	} {
		t.Run(sc.name(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := runFleet(t, sc)
				testenv.Summary(t, r.summary(sc))
				if r.waits != 0 || r.failed != 0 {
					t.Errorf("after warm-up: %d caller waits, %d failed calls; want none", r.waits, r.failed)
				}
				if r.writesPerSec > 0.8*fleetLimit {
					t.Errorf("after warm-up: %.0f store writes/s, want at most 80%% of the limit, %d", r.writesPerSec, int(0.8*fleetLimit))
				}
				if want := sc.rate; r.valuesPerSec < 0.99*want {
					t.Errorf("after warm-up: %.0f values/s drawn, want %.0f", r.valuesPerSec, want)
				}
			})
		})
	}
	testFleetService(t)
}
