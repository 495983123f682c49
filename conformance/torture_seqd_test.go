package conformance_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/internal/testkit/torture"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// The knobs of TestTortureSeqd, environment variables of `go test`; the
// torture mode also takes SEQSHIM_TORTURE_PROCS, _GOROUTINES, _PACE and
// _SEED (TestTorture's), the load mode _SEED.
const (
	envTortureSeqdDuration     = "SEQSHIM_TORTURE_SEQD_DURATION"      // torture mode: how long values are drawn (default 40s; 15s with -short)
	envTortureSeqdLoadDuration = "SEQSHIM_TORTURE_SEQD_LOAD_DURATION" // load mode (default 20s; 10s with -short)
	envTortureSeqdLoadClients  = "SEQSHIM_TORTURE_SEQD_LOAD_CLIENTS"  // load mode's client processes (default 200; 50 in a -race build)
	envTortureSeqdMode         = "SEQSHIM_TORTURE_SEQD_MODE"          // torture, load, or both (default)
)

// seqdServerProcs is the number of server processes: one core each
// (GOMAXPROCS=1) on the 2-core machines the suite runs on.
const seqdServerProcs = 2

// seqdRun is one run of TestTortureSeqd.
type seqdRun struct {
	name                string
	clients, goroutines int
	pace, duration      time.Duration
	clientBuffer        time.Duration
	clientMinBlock      int64 // 0: seqcache's default
	clientMaxBlock      int64
	clientFlush         time.Duration // how often a client flushes its record
	serverBuffer        time.Duration
	serverMaxBlock      int64
	nice                int              // the clients' niceness; 0: none
	clientEvery         [2]time.Duration // pause between two client kills (or clean stops), uniform
	serverEvery         [2]time.Duration // pause between two server kills (or clean stops), uniform
}

// TestTortureSeqd is TestTorture through the sequence service: two seqd
// server processes (seqd.New over one dynalite table, through the fault
// proxy, each serving its Handler on a fixed loopback port) and client
// processes drawing values of one sequence from a seqcache over the client
// store (seqdstore, store URL seqd+http://127.0.0.1:P1,127.0.0.1:P2: each
// request starts at the next host, and goes on to the other when one does
// not answer), every block request timed. A
// controller SIGKILLs and restarts clients (now and then stops one
// cleanly: its cache hands its unused values back to a server) and
// servers (now and then stops one cleanly with SIGTERM: Drain, the HTTP
// server shut down, Close, which hands the server cache's unused values
// back to the store). Every value handed to a caller is recorded; the
// torture checker counts duplicates (must be 0, across every process),
// values going backwards within a client process (must be 0), values
// outside what the store issued, and the waste.
//
// It runs in two modes:
//
//   - torture: TestTorture's size (8 clients × 32 goroutines, small blocks
//     and short buffers in the servers and the clients), for 40 s;
//   - load: 200 lightweight client processes (50 in a -race build; one
//     goroutine each drawing about 50 values a second in blocks of 10,
//     GOMAXPROCS=1, GOGC=50, niceness 10 so that the two servers get the
//     cores when they need them) for 20 s, clients SIGKILLed and
//     restarted, each server SIGKILLed at least once and one stopped
//     cleanly.
//
// In both, every server and client process has GOMAXPROCS=1: a server is
// one core. Each run prints a summary line: the checker's counts, kills,
// the Reserve requests the servers answered (counted by each server, a
// killed one's up to 50ms before its death) per second, per server core
// (per second divided by the 2 server processes, which share the
// machine's cores with the clients and dynalite: a throughput at the
// offered load, not a capacity) and per server CPU-second (the servers'
// user+system time: what one core answers when busy), the block request's
// latency as the clients time it (p50, p99: Reserve through the client
// store, failover included), and the processes' peak memory. The figures
// are reported, not asserted. Values going backwards are explained in a
// second line: which server incarnations the two blocks came from, whether
// the lower was taken from a server's cache, the server events just
// before (and t.Log shows examples).
func TestTortureSeqd(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(envTortureSeed); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s: %v", envTortureSeed, err)
		}
	}
	dur := func(name string, def, short time.Duration) time.Duration {
		d := tortureEnvDuration(t, name, def)
		if testing.Short() && os.Getenv(name) == "" {
			d = short
		}
		return d
	}
	tortureDur := dur(envTortureSeqdDuration, 40*time.Second, 15*time.Second)
	loadDur := dur(envTortureSeqdLoadDuration, 20*time.Second, 10*time.Second)
	loadClients := 200
	if seqdRaceBuild() {
		// The race detector's runtime takes several times the memory and
		// the CPU of each process: 50 of them load the machine as much.
		loadClients = 50
	}
	runs := []seqdRun{
		{
			name:    "torture",
			clients: tortureEnvInt(t, envTortureProcs, 8), goroutines: tortureEnvInt(t, envTortureGoroutines, 32),
			pace: tortureEnvDuration(t, envTorturePace, 2*time.Millisecond), duration: tortureDur,
			// Small blocks and short buffers: many requests, many faults.
			clientBuffer: 200 * time.Millisecond, clientMaxBlock: 1000, clientFlush: 10 * time.Millisecond,
			serverBuffer: 200 * time.Millisecond, serverMaxBlock: 1000,
			clientEvery: [2]time.Duration{300 * time.Millisecond, 1500 * time.Millisecond},
			serverEvery: [2]time.Duration{tortureDur / 8, tortureDur / 5},
		},
		{
			name:    "load",
			clients: tortureEnvInt(t, envTortureSeqdLoadClients, loadClients), goroutines: 1,
			pace: 20 * time.Millisecond, duration: loadDur,
			// Light clients, so that the machine's two cores are not all
			// theirs (the block request's latency would be their own
			// wait for a core): about 50 values a second each, in blocks
			// of 10, so that each asks for a block about 5 times a second;
			// the record flushed every 100ms (a SIGKILL loses at most that
			// much of it, which only shrinks the checked set).
			clientBuffer: 200 * time.Millisecond, clientMinBlock: 10, clientMaxBlock: 10, clientFlush: 100 * time.Millisecond,
			serverBuffer: 2 * time.Second, serverMaxBlock: 0, // the default: blocks follow the rate
			nice:        10,
			clientEvery: [2]time.Duration{300 * time.Millisecond, 1200 * time.Millisecond},
			serverEvery: [2]time.Duration{loadDur / 6, loadDur / 4},
		},
	}
	switch m := os.Getenv(envTortureSeqdMode); m {
	case "", "both":
	case "torture":
		runs = runs[:1]
	case "load":
		runs = runs[1:]
	default:
		t.Fatalf("%s=%q: want torture, load or both", envTortureSeqdMode, m)
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) { seqdTortureRun(t, endpoint, r, seed) })
	}
}

// seqdRaceBuild reports whether the test binary was built with -race.
func seqdRaceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

func seqdTortureRun(t *testing.T, endpoint string, cfg seqdRun, seed uint64) {
	t.Logf("%d servers, %d clients × %d goroutines for %v, seed %d (%s=%d repeats the schedule)",
		seqdServerProcs, cfg.clients, cfg.goroutines, cfg.duration, seed, envTortureSeed, seed)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.duration+5*time.Minute)
	defer cancel()
	const seq = "torture_seqd"
	d := testenv.NewDynamoTable(t) // the store on it talks to dynalite directly, not through the proxy
	store := d.Store()
	spec := sequence.DefaultSpec()
	if err := store.Create(ctx, seq, spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	proxy, err := torture.StartProxy(endpoint, tortureFaults, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()

	lifetime := (cfg.duration + 3*time.Minute).String()
	base := append(slices.Clip(os.Environ()),
		"AWS_ACCESS_KEY_ID=seqshim", "AWS_SECRET_ACCESS_KEY=seqshim", "AWS_EC2_METADATA_DISABLED=true",
		"GOMAXPROCS=1", "GOGC=50")
	servers := startSeqdServers(t, seqdServerProcs, append(slices.Clip(base),
		envSeqdServerStore+"="+testenv.DynamoTable{Endpoint: proxy.URL(), Name: d.Name}.URL(""),
		envSeqdServerBuffer+"="+cfg.serverBuffer.String(),
		envSeqdServerMaxBlock+"="+strconv.FormatInt(cfg.serverMaxBlock, 10),
		envSeqdServerLifetime+"="+lifetime))
	clientEnv := append(slices.Clip(base),
		envSeqdClientURL+"=seqd+http://"+strings.Join(servers.addrs, ","), envSeqdClientSeq+"="+seq,
		envSeqdClientGoroutines+"="+strconv.Itoa(cfg.goroutines), envSeqdClientPace+"="+cfg.pace.String(),
		envSeqdClientBuffer+"="+cfg.clientBuffer.String(),
		envSeqdClientMinBlock+"="+strconv.FormatInt(cfg.clientMinBlock, 10),
		envSeqdClientMaxBlock+"="+strconv.FormatInt(cfg.clientMaxBlock, 10),
		envSeqdClientFlush+"="+cfg.clientFlush.String(),
		envSeqdClientLifetime+"="+lifetime)
	if cfg.nice != 0 {
		clientEnv = append(clientEnv, envSeqdClientNice+"="+strconv.Itoa(cfg.nice))
	}

	starting := time.Now()
	pool := startChildren(t, cfg.clients, "TestTortureSeqdClientChild", envSeqdClientRecord, clientEnv)
	begin := time.Now() // the processes may take seconds more to get going: they are part of the load
	t.Logf("%d clients started in %v", cfg.clients, begin.Sub(starting).Round(time.Millisecond))
	deadline := begin.Add(cfg.duration)
	serversDone, quit := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(serversDone)
		servers.schedule(rand.New(rand.NewPCG(seed, 4)), cfg.serverEvery, deadline, quit)
	}()
	t.Cleanup(func() { // on a t.Fatal, before the servers are killed
		close(quit)
		<-serversDone
	})
	rng := rand.New(rand.NewPCG(seed, 3))
	for {
		pause := cfg.clientEvery[0] + time.Duration(rng.Int64N(int64(cfg.clientEvery[1]-cfg.clientEvery[0])+1))
		if time.Until(deadline) < pause {
			break
		}
		time.Sleep(pause)
		pool.replace(rng)
	}
	time.Sleep(time.Until(deadline))
	<-serversDone // its last restart done
	elapsed := time.Since(begin)
	// The processes' peak memory (VmHWM: the rusage of a child started by
	// vfork counts the parent's memory too).
	var rssMax, rssSum, rssN, serverRSS int64
	for _, c := range pool.children {
		if kb := seqdHWM(c.cmd.Process.Pid); kb > 0 {
			rssMax, rssSum, rssN = max(rssMax, kb), rssSum+kb, rssN+1
		}
	}
	for _, c := range servers.procs {
		serverRSS = max(serverRSS, seqdHWM(c.cmd.Process.Pid))
	}
	stopping := time.Now()
	pool.stopAll()
	clientsStopped := time.Since(stopping)
	servers.stopAll()
	t.Logf("clients stopped in %v, then servers in %v", clientsStopped.Round(time.Millisecond), (time.Since(stopping) - clientsStopped).Round(time.Millisecond))
	faults := proxy.Counts()

	// What the store issued, and what the clients recorded.
	recs, rep := pool.check(ctx, t, store, seq, spec.Start)

	// The block requests, as the clients timed them, and the blocks the
	// servers got from the store.
	clientBlocks := map[string][]seqdBlock{}
	var lat []time.Duration
	failed, recoveredBlocks := 0, 0
	blks, err := filepath.Glob(filepath.Join(pool.dir, "*.blk"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range blks {
		bs, err := readSeqdBlocks(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			switch b.kind {
			case 'b':
				lat = append(lat, b.took)
			case 'f':
				failed++
			case 'r':
				recoveredBlocks++
			}
		}
		clientBlocks[strings.TrimSuffix(filepath.Base(f), ".blk")] = bs
	}
	slices.Sort(lat)
	serverBlocks, answered, err := servers.results()
	if err != nil {
		t.Fatal(err)
	}

	secs := elapsed.Seconds()
	line := fmt.Sprintf("torture-seqd (%s): %d servers (GOMAXPROCS=1 each), %d clients × %d goroutines for %v: %d values (%.0f/s), %d duplicates, %d backwards, %d out of range, %d wasted (%.1f%% of %d issued); clients: %d SIGKILLs, %d clean stops, %d incarnations recorded, %d errors; servers: %d SIGKILLs (%s), %d clean stops (SIGTERM: Drain, Shutdown, Close), %d incarnations; "+
		"blocks: %d Reserve requests answered by the servers, %.0f/s, %.0f/s per server core (%d server processes of one core each, on %d cores shared with the clients and dynalite), %.0f per server CPU-second (%.1f s CPU); block request as a client times it: p50 %v, p99 %v, max %v (%d answered, %d failed, %d blocks recovered); peak RSS: clients %.0f MB at most (%.0f MB mean, of %d), servers %.0f MB at most; faults: %d of %d store requests answered, %d dropped after the store applied them, %d reset, %d delayed",
		cfg.name, seqdServerProcs, cfg.clients, cfg.goroutines, cfg.duration,
		rep.Values, float64(rep.Values)/secs, rep.Duplicates, rep.Backwards, rep.OutOfRange, rep.Wasted, torturePct(rep.Wasted, rep.Issued), rep.Issued,
		pool.kills, pool.graceful, rep.Incarnations, rep.Errors,
		servers.kills(), servers.killsBySlot(), servers.stops, servers.incarnation,
		answered, float64(answered)/secs, float64(answered)/secs/seqdServerProcs, seqdServerProcs, runtime.NumCPU(),
		float64(answered)/max(servers.cpu.Seconds(), 1e-9), servers.cpu.Seconds(),
		seqdPercentile(lat, 50), seqdPercentile(lat, 99), seqdPercentile(lat, 100), len(lat), failed, recoveredBlocks,
		float64(rssMax)/1024, float64(rssSum)/1024/float64(max(rssN, 1)), rssN, float64(serverRSS)/1024,
		faults.Forwarded, faults.Requests, faults.Dropped, faults.Reset, faults.Delayed)
	tortureSummary(t, line)
	if rep.Backwards > 0 {
		summary, examples := seqdExplainBackwards(recs, clientBlocks, serverBlocks, servers.events, begin)
		tortureSummary(t, fmt.Sprintf("torture-seqd (%s) backwards: %s", cfg.name, summary))
		for _, e := range examples {
			t.Logf("backwards: %s", e)
		}
	}

	if !rep.OK() {
		t.Errorf("the records show values handed out twice, backwards or out of range: %q", rep.Examples)
	}
	if rep.Values == 0 || rep.Incarnations > cfg.clients+pool.kills+pool.graceful {
		t.Errorf("%d values from %d record files of %d client processes started", rep.Values, rep.Incarnations, cfg.clients+pool.kills+pool.graceful)
	}
	// The run must have exercised what it claims to.
	for slot, n := range servers.killed {
		if n == 0 {
			t.Errorf("server %d was never SIGKILLed: raise the duration", slot)
		}
	}
	if pool.kills == 0 || servers.stops == 0 {
		t.Errorf("too short to test anything: %d client kills, %d clean server stops (raise the duration)", pool.kills, servers.stops)
	}
	pool.checkLogs()
	servers.checkLogs()
	for _, rec := range recs {
		for _, e := range rec.Errors {
			if !strings.Contains(e, seqcache.ErrUnavailable.Error()) {
				t.Errorf("%s: unexpected error %q", rec.Name, e)
				break
			}
		}
	}
}

// seqdHWM is the peak resident memory of process pid in KB (VmHWM), 0 if
// unknown.
func seqdHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

// seqdPercentile is the p-th percentile of sorted durations (p 100: the
// largest), rounded for reading.
func seqdPercentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := min(len(sorted)*p/100, len(sorted)-1)
	d := sorted[i]
	switch {
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 100*time.Microsecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// seqdServers runs the server processes of TestTortureSeqd, each on a
// fixed loopback port of its slot, so that clients find it again after a
// restart.
type seqdServers struct {
	t      *testing.T
	dir    string
	env    []string
	addrs  []string
	procs  []*seqdServer
	events []seqdEvent

	incarnation int
	killed      []int         // SIGKILLs by slot
	stops       int           // clean stops (SIGTERM) during the run
	cpu         time.Duration // user+system time of the incarnations that ended
}

// seqdServer is one server process.
type seqdServer struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser // held open: the server stops cleanly when it closes (the controller died)
	log   string
	done  chan struct{} // closed once it exited
	err   error         // Wait's, once done is closed
}

// seqdEvent is something the controller did to a server.
type seqdEvent struct {
	at   time.Time
	what string // SIGKILL, SIGTERM, started
	name string // the incarnation
}

// startSeqdServers starts n servers and waits until they answer; the
// test's cleanup kills any left running.
func startSeqdServers(t *testing.T, n int, env []string) *seqdServers {
	s := &seqdServers{t: t, dir: t.TempDir(), env: slices.Clip(env), killed: make([]int, n)}
	for range n { // ports of their own, free now; the kernel will not hand them out again soon
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.addrs = append(s.addrs, ln.Addr().String())
		ln.Close()
	}
	s.procs = make([]*seqdServer, n)
	t.Cleanup(func() {
		for _, c := range s.procs {
			if c != nil {
				select {
				case <-c.done:
				default:
					c.cmd.Process.Kill()
					<-c.done
				}
			}
		}
	})
	for i := range s.procs {
		c, err := s.start(i)
		s.procs[i] = c
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// start starts an incarnation of the server of slot and waits until it
// answers /healthz.
func (s *seqdServers) start(slot int) (*seqdServer, error) {
	s.incarnation++
	name := fmt.Sprintf("s%d-%03d", slot, s.incarnation)
	c := &seqdServer{name: name, log: filepath.Join(s.dir, name+".log"), done: make(chan struct{})}
	logf, err := os.Create(c.log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	c.cmd = exec.Command(os.Args[0], "-test.run=^TestTortureSeqdServerChild$", "-test.count=1", "-test.v")
	c.cmd.Env = append(s.env, envSeqdServerAddr+"="+s.addrs[slot],
		envSeqdServerBlocks+"="+filepath.Join(s.dir, name+".blocks"),
		envSeqdServerCount+"="+filepath.Join(s.dir, name+".count"))
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	client := &http.Client{Timeout: time.Second}
	defer client.CloseIdleConnections()
	for deadline := time.Now().Add(60 * time.Second); ; {
		resp, err := client.Get("http://" + s.addrs[slot] + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-c.done:
			log, _ := os.ReadFile(c.log)
			return c, fmt.Errorf("server %s exited while starting (%v):\n%s", name, c.err, tortureTail(string(log), 3000))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return c, fmt.Errorf("server %s did not answer within 60s", name)
		}
	}
	s.events = append(s.events, seqdEvent{time.Now(), "started", name})
	return c, nil
}

// ended accounts for an incarnation that exited.
func (s *seqdServers) ended(c *seqdServer) {
	if ps := c.cmd.ProcessState; ps != nil {
		s.cpu += ps.UserTime() + ps.SystemTime()
	}
}

// kill SIGKILLs the server of slot.
func (s *seqdServers) kill(slot int) {
	c := s.procs[slot]
	s.events = append(s.events, seqdEvent{time.Now(), "SIGKILL", c.name})
	c.cmd.Process.Kill()
	<-c.done
	s.ended(c)
	s.killed[slot]++
}

// term stops the servers of slots cleanly (SIGTERM), in parallel, and
// waits for them; a server that fails or takes more than a minute fails
// the test.
func (s *seqdServers) term(slots ...int) {
	for _, slot := range slots {
		c := s.procs[slot]
		s.events = append(s.events, seqdEvent{time.Now(), "SIGTERM", c.name})
		c.cmd.Process.Signal(syscall.SIGTERM)
	}
	timeout := time.After(60 * time.Second)
	for _, slot := range slots {
		c := s.procs[slot]
		select {
		case <-c.done:
		case <-timeout:
			c.cmd.Process.Kill()
			<-c.done
			s.t.Errorf("server %s did not stop within 60s of SIGTERM", c.name)
		}
		s.ended(c)
		if c.err != nil {
			log, _ := os.ReadFile(c.log)
			s.t.Errorf("server %s stopped with %v:\n%s", c.name, c.err, tortureTail(string(log), 3000))
		}
	}
}

// schedule ends a server every so often until deadline, alternating
// between them — SIGKILL, but the third time and a quarter of the later
// times SIGTERM — and starts it again after up to half a second down. It
// returns before deadline, leaving room for the last restart, or once quit
// is closed.
func (s *seqdServers) schedule(rng *rand.Rand, every [2]time.Duration, deadline time.Time, quit <-chan struct{}) {
	sleep := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-quit:
			return false
		}
	}
	first := rng.IntN(len(s.procs))
	for k := 0; ; k++ {
		pause := every[0] + time.Duration(rng.Int64N(int64(every[1]-every[0])+1))
		down := time.Duration(rng.Int64N(int64(500 * time.Millisecond)))
		if time.Until(deadline) < pause+down+time.Second {
			return
		}
		if !sleep(pause) {
			return
		}
		slot := (first + k) % len(s.procs)
		if clean := k == 2 || k > 2 && rng.Float64() < 0.25; clean {
			s.term(slot)
			s.stops++
		} else {
			s.kill(slot)
		}
		sleep(down) // started all the same: the cleanup kills what runs
		c, err := s.start(slot)
		if c != nil {
			s.procs[slot] = c
		}
		if err != nil {
			s.t.Error(err)
			return
		}
	}
}

// stopAll stops every server cleanly.
func (s *seqdServers) stopAll() {
	var slots []int
	for i, c := range s.procs {
		select {
		case <-c.done:
		default:
			slots = append(slots, i)
		}
	}
	s.term(slots...)
}

func (s *seqdServers) kills() int {
	n := 0
	for _, k := range s.killed {
		n += k
	}
	return n
}

func (s *seqdServers) killsBySlot() string {
	var parts []string
	for i, k := range s.killed {
		parts = append(parts, fmt.Sprintf("server %d: %d", i, k))
	}
	return strings.Join(parts, ", ")
}

// results reads the blocks every incarnation got from the store, and the
// Reserve requests they answered (a killed one's count as of at most 50ms
// before its death).
func (s *seqdServers) results() (blocks []seqdBlock, answered int64, err error) {
	logs, err := filepath.Glob(filepath.Join(s.dir, "*.blocks"))
	if err != nil {
		return nil, 0, err
	}
	for _, l := range logs {
		bs, err := readSeqdBlocks(l)
		if err != nil {
			return nil, 0, err
		}
		blocks = append(blocks, bs...)
	}
	counts, err := filepath.Glob(filepath.Join(s.dir, "*.count"))
	if err != nil {
		return nil, 0, err
	}
	for _, c := range counts {
		b, err := os.ReadFile(c)
		if err != nil {
			return nil, 0, err
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", c, err)
		}
		answered += n
	}
	return blocks, answered, nil
}

// checkLogs fails the test for a race report or a panic in any server's
// log.
func (s *seqdServers) checkLogs() {
	logs, err := filepath.Glob(filepath.Join(s.dir, "*.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			s.t.Fatal(err)
		}
		if str := string(b); strings.Contains(str, "DATA RACE") || strings.Contains(str, "panic:") {
			s.t.Errorf("server %s:\n%s", filepath.Base(l), tortureTail(str, 5000))
		}
	}
}

// seqdBlockIndex finds, by value, the block that held it.
type seqdBlockIndex []seqdBlock // sorted by first

func newSeqdBlockIndex(bs []seqdBlock) seqdBlockIndex {
	var ix seqdBlockIndex
	for _, b := range bs {
		if b.count > 0 {
			ix = append(ix, b)
		}
	}
	sort.SliceStable(ix, func(i, j int) bool { return ix[i].first < ix[j].first })
	return ix
}

// find returns the block received last, not after at (zero: any), that
// holds v.
func (ix seqdBlockIndex) find(v int64, at time.Time) (seqdBlock, bool) {
	i := sort.Search(len(ix), func(i int) bool { return ix[i].first > v })
	var got seqdBlock
	ok := false
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		b := ix[j]
		if v < b.first || v >= b.first+b.count || !at.IsZero() && b.at.After(at) {
			continue
		}
		if !ok || b.at.After(got.at) {
			got, ok = b, true
		}
	}
	return got, ok
}

// seqdExplainBackwards tells, for the values that went backwards, where the
// two client blocks involved came from — the block holding the value and
// the one holding the larger value handed out before it — and what happened
// around them: which server incarnation each came from (by the store
// blocks the servers logged), whether the lower one was taken from a
// server's cache or reserved from the store for the request, whether the
// higher one was recovered by its token, whether a request of the client
// failed in between, and what the controller had just done to the servers.
//
// It returns a summary and examples: the first two, then the first of each
// other kind.
func seqdExplainBackwards(recs []torture.Record, clientBlocks map[string][]seqdBlock, serverBlocks []seqdBlock, events []seqdEvent, begin time.Time) (summary string, examples []string) {
	servers := newSeqdBlockIndex(serverBlocks)
	describes := map[string][]seqdBlock{} // by server incarnation
	for _, b := range serverBlocks {
		if b.kind == 'd' {
			describes[b.src] = append(describes[b.src], b)
		}
	}
	since := func(t time.Time) string { return fmt.Sprintf("%.2fs", t.Sub(begin).Seconds()) }
	slot := func(name string) string { return name[:2] } // s0-003 → s0
	type pair struct {
		inc       string
		low, high int64 // the client blocks' first values
	}
	type kind struct{ values, pairs int }
	kinds := map[string]*kind{}
	pairCats := map[pair]string{} // each pair's kind
	nearEvent, values, incs := 0, 0, 0
	type ex struct {
		at        time.Time
		cat, text string
	}
	var exs []ex
	for _, rec := range recs {
		regs := torture.Regressions(rec)
		if len(regs) == 0 {
			continue
		}
		incs++
		all := clientBlocks[rec.Name]
		cix := newSeqdBlockIndex(all)
		for _, r := range regs {
			values++
			low, okL := cix.find(r.Value.Value, time.Time{})
			high, okH := cix.find(r.After.Value, time.Time{})
			var lowS, highS seqdBlock
			okLS, okHS := false, false
			if okL && okH {
				lowS, okLS = servers.find(low.first, low.at)
				highS, okHS = servers.find(high.first, high.at)
			}
			p := pair{rec.Name, low.first, high.first}
			cat, seen := pairCats[p]
			if !seen {
				switch {
				case !okL || !okH:
					cat = "a block missing from the client's log"
				case !okLS || !okHS:
					cat = "a block no server logged"
				default:
					switch {
					case slot(lowS.src) != slot(highS.src):
						cat = "blocks from the two servers"
					case lowS.src != highS.src:
						cat = "blocks from two incarnations of one server"
					default:
						cat = "blocks from one server incarnation"
					}
					reqStart := low.at.Add(-low.took)
					if low.kind == 'b' && !lowS.at.Before(reqStart) {
						cat += ", the lower from a store block its server got during the request"
					} else {
						cat += ", the lower from the server's cache"
						// Did the server read the store (Describe: it saw the
						// client's last value above the block) meanwhile?
						okD, failedD := 0, 0
						for _, d := range describes[lowS.src] {
							if !d.at.Before(reqStart) && !d.at.After(low.at) {
								if d.ok {
									okD++
								} else {
									failedD++
								}
							}
						}
						switch {
						case low.kind != 'b':
						case failedD > 0:
							cat += " (a Describe of that server failed during the request)"
						case okD > 0:
							cat += " (that server made a Describe during the request, which succeeded)"
						default:
							cat += " (no Describe by that server during the request)"
						}
					}
					if high.kind == 'r' {
						cat += ", the higher recovered by its token"
					}
					failed := 0
					for _, b := range all {
						if b.kind == 'f' && b.at.After(high.at) && b.at.Before(low.at) {
							failed++
						}
					}
					if failed > 0 {
						cat += ", a request failed in between"
					}
				}
				pairCats[p] = cat
			}
			k := kinds[cat]
			if k == nil {
				k = &kind{}
				kinds[cat] = k
			}
			k.values++
			// The last server event of the run before the lower block
			// arrived.
			ev := "none since the clients started"
			if okL {
				for i := len(events) - 1; i >= 0 && !events[i].at.Before(begin); i-- {
					if e := events[i]; !e.at.After(low.at) {
						ev = fmt.Sprintf("%s %s at %s (%v before)", e.what, e.name, since(e.at), low.at.Sub(e.at).Round(time.Millisecond))
						if low.at.Sub(e.at) < 2*time.Second {
							nearEvent++
						}
						break
					}
				}
			}
			if seen {
				continue
			}
			k.pairs++
			desc := func(cb seqdBlock, ok bool, sb seqdBlock, sok bool) string {
				if !ok {
					return "block not in the client's log"
				}
				s := fmt.Sprintf("client block [%d..%d] received %s (request took %v)", cb.first, cb.first+cb.count-1, since(cb.at), cb.took.Round(time.Microsecond))
				if cb.kind == 'r' {
					s = fmt.Sprintf("client block [%d..%d] recovered by its token %s", cb.first, cb.first+cb.count-1, since(cb.at))
				}
				if sok {
					s += fmt.Sprintf(" from %s's store block [%d..%d] (%s %s)", sb.src, sb.first, sb.first+sb.count-1,
						map[byte]string{'s': "reserved", 'r': "recovered"}[sb.kind], since(sb.at))
				} else {
					s += ", from no server's logged block"
				}
				return s
			}
			exs = append(exs, ex{low.at, cat, fmt.Sprintf("%s: %d (goroutine %d) after %d (goroutine %d): %s; %s; last server event: %s [%s]",
				rec.Name, r.Value.Value, r.Value.G, r.After.Value, r.After.G,
				desc(low, okL, lowS, okLS), desc(high, okH, highS, okHS), ev, cat)})
		}
	}
	// How often a client's next block came from the other server.
	switches, follows := 0, 0
	for _, bs := range clientBlocks {
		var got []seqdBlock
		for _, b := range bs {
			if b.kind != 'f' {
				got = append(got, b)
			}
		}
		slices.SortFunc(got, func(a, b seqdBlock) int { return a.at.Compare(b.at) })
		prev := ""
		for _, b := range got {
			sb, ok := servers.find(b.first, b.at)
			if !ok {
				prev = ""
				continue
			}
			if prev != "" {
				follows++
				if slot(sb.src) != prev {
					switches++
				}
			}
			prev = slot(sb.src)
		}
	}
	var cs []string
	for c, k := range kinds {
		cs = append(cs, fmt.Sprintf("%d values (%d pairs of blocks): %s", k.values, k.pairs, c))
	}
	slices.Sort(cs)
	slices.SortFunc(exs, func(a, b ex) int { return a.at.Compare(b.at) })
	shown := map[string]bool{}
	for i, e := range exs {
		if i < 2 || !shown[e.cat] {
			examples = append(examples, e.text)
			shown[e.cat] = true
		}
	}
	summary = fmt.Sprintf("%d values in %d client incarnations, %d pairs of blocks (a value's, and that of a larger value handed out before it): %s; %d of the values in a block received within 2s after a server event (kill, stop, start); of every client's blocks, %d of %d came from the other server than the block before",
		values, incs, len(pairCats), strings.Join(cs, "; "), nearEvent, switches, follows)
	return summary, examples
}
