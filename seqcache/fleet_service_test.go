package seqcache

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/sequence"
)

// The fleet simulation with the sequence service (package seqd) between the
// processes and the store: each server is a Cache over the DynamoDB item
// (dynamoModel), as seqd.Server keeps one, and each process's Cache
// reserves its blocks from a server, which hands them out of its own cache
// with Handle.Take, as seqd.Server.reserve does (with seqd's defaults: no
// MaxCount, no rate limit).

// serverClient is one process's client of a server of the sequence
// service: a round trip to the server (drawn as DynamoDB's, dynamoLatency:
// the same region), and the server's cache's Take.
type serverClient struct {
	srv   *Cache
	calls *atomic.Int64 // calls made by every process, for the summary
	mu    sync.Mutex    // protects rng
	rng   *rand.Rand
}

func (c *serverClient) Reserve(ctx context.Context, name string, n int64) (sequence.Block, error) {
	c.calls.Add(1)
	c.mu.Lock()
	there, back := dynamoLatency(c.rng)/2, dynamoLatency(c.rng)/2
	c.mu.Unlock()
	if err := sleepCtx(ctx, there); err != nil {
		return sequence.Block{}, err
	}
	b, err := c.srv.Handle(name).Take(ctx, min(n, seqdMaxCount))
	if err := sleepCtx(ctx, back); err != nil {
		return sequence.Block{}, err // the answer is lost: a gap
	}
	return b, err
}

// seqdMaxCount is seqd's default bound on what one client's Reserve takes
// from a server's cache (seqd.DefaultMaxCount): a client's cache sizes its
// blocks from the gaps between its own blocks, which the servers' blocks
// widen, and without the bound a few clients asking for a million values
// each drain a server.
const seqdMaxCount = 10_000

// serverWaits is the number of Takes that waited for a block, in all the
// servers.
func serverWaits(servers []*Cache) int64 {
	var n int64
	for _, s := range servers {
		for _, st := range s.AllStats() {
			n += st.Waits
		}
	}
	return n
}

// envFleetServiceScale divides the fleet of the service scenarios: its
// processes, their start rate and the values they draw (each process
// draws 100 values/s whatever the scale; the servers stay 10). By default
// the scenario through the servers runs the fleet of the issue, 100,000
// processes (about a minute), and the direct one a tenth of it (the full
// one takes about five minutes: its processes wait on a throttled item);
// under -race both run a hundredth.
const envFleetServiceScale = "SEQSHIM_FLEET_SERVICE_SCALE"

// testFleetService runs TestFleet's scenarios of the sequence service:
// 100,000 processes starting 2,000 a second and drawing 10,000,000 values/s
// in all, divided by the scale (envFleetServiceScale), through 10 servers
// to the item, and the same fleet without them, each process reserving from
// the item, for comparison. Through the servers, after warm-up: no call
// fails, no store call is throttled, the store's writes stay under 10% of
// its limit, and the fleet draws its rate.
func testFleetService(t *testing.T) {
	scale, directScale := 1, 10
	if fleetRace {
		scale, directScale = 100, 100
	}
	if v := os.Getenv(envFleetServiceScale); v != "" {
		n, err := strconv.Atoi(v)
		// The processes starting in a tick (fleetTick) must be whole.
		if err != nil || n < 1 || 400%n != 0 {
			t.Fatalf("%s=%q: want a divisor of 400 (1: the full fleet)", envFleetServiceScale, v)
		}
		scale, directScale = n, n
	}
	fleet := func(scale int, servers int) fleetScenario {
		return fleetScenario{procs: 100_000 / scale, rate: 10_000_000 / float64(scale), joinRate: 2000 / scale, servers: servers}
	}
	service := fleet(scale, 10)
	t.Run(service.name(), func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := runFleet(t, service)
			testenv.Summary(t, r.summary(service))
			if r.failed != 0 {
				t.Errorf("after warm-up: %d failed calls; want none", r.failed)
			}
			if r.throttledWarm != 0 {
				t.Errorf("after warm-up: %d throttled store calls; want none", r.throttledWarm)
			}
			if r.writesPerSec >= 0.1*fleetLimit {
				t.Errorf("after warm-up: %.0f store writes/s, want under 10%% of the limit, %d", r.writesPerSec, int(0.1*fleetLimit))
			}
			if want := service.rate; r.valuesPerSec < 0.99*want {
				t.Errorf("after warm-up: %.0f values/s drawn, want %.0f", r.valuesPerSec, want)
			}
		})
	})
	// The same fleet without the service: reported, not judged.
	direct := fleet(directScale, 0)
	t.Run(direct.name(), func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := runFleet(t, direct)
			testenv.Summary(t, r.summary(direct))
		})
	})
}
