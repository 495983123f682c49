package conformance_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/seqshim/seqshim/driver" // driver "seqshim"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/internal/testkit/torture"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// The torture test's knobs, environment variables of `go test`.
const (
	envTortureDuration   = "SEQSHIM_TORTURE_DURATION"   // how long values are drawn (default 45s; 15s with -short)
	envTortureProcs      = "SEQSHIM_TORTURE_PROCS"      // processes (default 8)
	envTortureGoroutines = "SEQSHIM_TORTURE_GOROUTINES" // goroutines per process (default 32)
	envTorturePace       = "SEQSHIM_TORTURE_PACE"       // mean pause between one goroutine's calls (default 2ms)
	envTortureSeed       = "SEQSHIM_TORTURE_SEED"       // seed of the kill schedule and the faults (default random, logged)
	envTortureRecovery   = "SEQSHIM_TORTURE_RECOVERY"   // seqshim.recovery of the runs: on, off, or both (default: one run of each, half the duration each)
)

// What the controller tells a child process (TestTortureChild).
const (
	envChildRecord     = "SEQSHIM_TORTURE_CHILD_RECORD" // record file; set only in a child
	envChildDSN        = "SEQSHIM_TORTURE_CHILD_DSN"
	envChildSeq        = "SEQSHIM_TORTURE_CHILD_SEQ"
	envChildGoroutines = "SEQSHIM_TORTURE_CHILD_GOROUTINES"
	envChildPace       = "SEQSHIM_TORTURE_CHILD_PACE"
	envChildLifetime   = "SEQSHIM_TORTURE_CHILD_LIFETIME" // the child stops by itself after this
)

// The fault mix between the processes and dynalite during the torture run.
var tortureFaults = torture.Faults{Reset: 0.04, Delay: 0.08, Drop: 0.06, MaxDelay: 300 * time.Millisecond}

// TestTorture draws values of one sequence from one dynalite store through
// seqshim in several processes at once, while a controller kills random
// processes with SIGKILL (and now and then stops one cleanly, which hands its
// unused values back) and restarts them, and a proxy between the processes
// and dynalite resets connections, delays requests and throws away responses
// the store applied. Every value handed to a caller is recorded; no value may
// appear twice, none may go backwards within a process, none may lie outside
// what the store issued.
//
// It runs once with the recovery of lost answers (seqshim.recovery) on and
// once with it off, on the same schedule, each for half the duration: both
// must hand out no value twice, and each reports the values wasted, so the
// two lines show what recovery saves.
func TestTorture(t *testing.T) {
	pg := testenv.PG(t)
	endpoint := testenv.DynamoDB(t)
	duration := tortureEnvDuration(t, envTortureDuration, 45*time.Second)
	if testing.Short() && os.Getenv(envTortureDuration) == "" {
		duration = 15 * time.Second
	}
	modes := []string{"on", "off"}
	switch m := os.Getenv(envTortureRecovery); m {
	case "", "both":
	case "on", "off":
		modes = []string{m}
	default:
		t.Fatalf("%s=%q: want on, off or both", envTortureRecovery, m)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(envTortureSeed); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s: %v", envTortureSeed, err)
		}
	}
	for _, mode := range modes {
		t.Run("recovery "+mode, func(t *testing.T) {
			tortureRun(t, pg, endpoint, mode, duration/time.Duration(len(modes)), seed)
		})
	}
}

// tortureRun is one run of TestTorture, with seqshim.recovery set to
// recovery.
func tortureRun(t *testing.T, pg, endpoint, recovery string, duration time.Duration, seed uint64) {
	procs := tortureEnvInt(t, envTortureProcs, 8)
	goroutines := tortureEnvInt(t, envTortureGoroutines, 32)
	pace := tortureEnvDuration(t, envTorturePace, 2*time.Millisecond)
	t.Logf("%d processes × %d goroutines for %v, seed %d (%s=%d repeats the schedule)", procs, goroutines, duration, seed, envTortureSeed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))

	ctx, cancel := context.WithTimeout(context.Background(), duration+5*time.Minute)
	defer cancel()
	const seq = "torture_seq"
	d := testenv.NewDynamoTable(t) // the store on it talks to dynalite directly, not through a proxy
	store, table := d.Store(), d.Name
	spec := sequence.DefaultSpec()
	if err := store.Create(ctx, seq, spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	proxy, err := torture.StartProxy(endpoint, tortureFaults, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()

	// Small blocks and a short buffer: many store calls, so many faults.
	dsn := tortureDSN(t, pg, table, proxy.URL(), map[string]string{
		"seqshim.buffer":         "200ms",
		"seqshim.max_block":      "1000",
		"seqshim.max_wait":       "3s",
		"seqshim.refill_timeout": "1s",
		"seqshim.recovery":       recovery,
	})
	dir := t.TempDir()
	env := append(os.Environ(),
		"AWS_ACCESS_KEY_ID=seqshim", "AWS_SECRET_ACCESS_KEY=seqshim", "AWS_EC2_METADATA_DISABLED=true",
		envChildDSN+"="+dsn, envChildSeq+"="+seq,
		envChildGoroutines+"="+strconv.Itoa(goroutines), envChildPace+"="+pace.String(),
		envChildLifetime+"="+(duration+2*time.Minute).String())

	type child struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		log   string
	}
	incarnation := 0
	start := func(slot int) *child {
		incarnation++
		name := fmt.Sprintf("p%d-%03d", slot, incarnation)
		logPath := filepath.Join(dir, name+".log")
		logf, err := os.Create(logPath)
		if err != nil {
			t.Fatal(err)
		}
		defer logf.Close()
		cmd := exec.Command(os.Args[0], "-test.run=^TestTortureChild$", "-test.count=1")
		cmd.Env = append(slices.Clip(env), envChildRecord+"="+filepath.Join(dir, name+".rec"))
		cmd.Stdout, cmd.Stderr = logf, logf
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return &child{cmd: cmd, stdin: stdin, log: logPath}
	}
	// stop closes the child's stdin (it stops drawing, flushes, closes its
	// sql.DB: unused values go back to the store) and waits for it.
	stop := func(c *child) {
		c.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				log, _ := os.ReadFile(c.log)
				t.Errorf("child %s stopped with %v:\n%s", filepath.Base(c.log), err, tortureTail(string(log), 3000))
			}
		case <-time.After(60 * time.Second):
			c.cmd.Process.Kill()
			<-done
			t.Errorf("child %s did not stop within 60s of being told to", filepath.Base(c.log))
		}
	}
	children := make([]*child, procs)
	for i := range children {
		children[i] = start(i)
	}
	defer func() { // on a t.Fatal: leave no process behind
		for _, c := range children {
			if c != nil && c.cmd.ProcessState == nil {
				c.cmd.Process.Kill()
				c.cmd.Wait()
			}
		}
	}()

	kills, graceful := 0, 0
	deadline := time.Now().Add(duration)
	for {
		pause := 300*time.Millisecond + time.Duration(rng.Int64N(int64(1200*time.Millisecond)))
		if time.Until(deadline) < pause {
			break
		}
		time.Sleep(pause)
		slot := rng.IntN(procs)
		if rng.Float64() < 0.85 {
			children[slot].cmd.Process.Kill() // SIGKILL: no flush, no release
			children[slot].cmd.Wait()
			kills++
		} else {
			stop(children[slot])
			graceful++
		}
		children[slot] = start(slot)
	}
	time.Sleep(time.Until(deadline))
	stopping := time.Now()
	for _, c := range children {
		c.stdin.Close() // all at once: they stop in parallel
	}
	for _, c := range children {
		stop(c)
	}
	t.Logf("children stopped in %v", time.Since(stopping).Round(time.Millisecond))
	faults := proxy.Counts()

	info, err := store.Describe(ctx, seq)
	if err != nil {
		t.Fatal(err)
	}
	last := info.Position.Last
	if !info.Position.Called {
		last-- // Last itself is the next value
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.rec"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []torture.Record
	for _, f := range files {
		rec, err := torture.ReadRecord(f)
		if err != nil {
			t.Fatal(err)
		}
		rec.Name = filepath.Base(f)
		recs = append(recs, rec)
	}
	rep := torture.Check(recs, spec.Start, last)
	// The reservations whose answer the proxy dropped: their values are
	// handed out only if recovered.
	var lostBlocks [][2]int64
	dropped := proxy.Dropped()
	for _, r := range dropped {
		first, last := r.Block(spec.Increment)
		lostBlocks = append(lostBlocks, [2]int64{first, last})
	}
	lostValues, lostServed := torture.LostAnswers(recs, lostBlocks)
	line := fmt.Sprintf("torture: %d values, %d duplicates, %d backwards, %d out of range, %d wasted (%.1f%% of %d issued), %d kills, %d clean restarts, %d processes recorded, %d errors; faults: %d of %d store requests answered, %d dropped after the store applied them, %d reset, %d delayed; %d reservations' answers lost (%d values), %d of those values handed out, %d wasted (recovery %s)",
		rep.Values, rep.Duplicates, rep.Backwards, rep.OutOfRange, rep.Wasted, torturePct(rep.Wasted, rep.Issued), rep.Issued,
		kills, graceful, rep.Incarnations, rep.Errors, faults.Forwarded, faults.Requests, faults.Dropped, faults.Reset, faults.Delayed,
		len(dropped), lostValues, lostServed, lostValues-lostServed, recovery)
	tortureSummary(t, line)
	switch {
	case recovery == "off" && lostServed != 0:
		t.Errorf("recovery off: %d values of reservations whose answer was lost were handed out", lostServed)
	case recovery == "on" && len(dropped) >= 10 && lostServed == 0:
		t.Errorf("recovery on: none of the %d reservations whose answer was lost was recovered", len(dropped))
	}
	if !rep.OK() {
		t.Errorf("the records show values handed out twice, backwards or out of range: %q", rep.Examples)
	}
	// A process killed while starting leaves no record file: fewer files
	// than incarnations is fine, no value at all is not.
	if rep.Values == 0 || rep.Incarnations > procs+kills+graceful {
		t.Errorf("%d values from %d record files of %d processes started", rep.Values, rep.Incarnations, procs+kills+graceful)
	}
	// The run must have exercised what it claims to.
	if kills == 0 || faults.Dropped+faults.Reset+faults.Delayed == 0 {
		t.Errorf("too short to test anything: %d kills, faults %+v (raise %s)", kills, faults, envTortureDuration)
	}
	// A killed child cannot report a failure by its exit status: read what
	// every incarnation wrote (the race detector's reports, panics).
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); strings.Contains(s, "DATA RACE") || strings.Contains(s, "panic:") {
			t.Errorf("child %s:\n%s", filepath.Base(l), tortureTail(s, 5000))
		}
	}
	for _, rec := range recs {
		for _, e := range rec.Errors {
			if !strings.Contains(e, seqcache.ErrUnavailable.Error()) {
				t.Errorf("%s: unexpected error %q", rec.Name, e)
				break
			}
		}
	}
}

// TestTortureChild is one process of TestTorture, which starts it by running
// the test binary again; on its own it skips.
func TestTortureChild(t *testing.T) {
	path := os.Getenv(envChildRecord)
	if path == "" {
		t.Skip("helper process of TestTorture")
	}
	goroutines, err := strconv.Atoi(os.Getenv(envChildGoroutines))
	if err != nil {
		t.Fatal(err)
	}
	pace, err := time.ParseDuration(os.Getenv(envChildPace))
	if err != nil {
		t.Fatal(err)
	}
	lifetime, err := time.ParseDuration(os.Getenv(envChildLifetime))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), lifetime)
	defer cancel()
	go func() { // stdin closed: the controller says stop (or died)
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	db, err := sql.Open("seqshim", os.Getenv(envChildDSN))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	rec, err := torture.CreateRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	q := "SELECT nextval('" + os.Getenv(envChildSeq) + "')"
	values, errs := torture.Draw(ctx, rec, torture.DrawOptions{Goroutines: goroutines, Pace: pace},
		func(ctx context.Context) (int64, error) {
			var v int64
			err := db.QueryRowContext(ctx, q).Scan(&v)
			return v, err
		})
	if err := rec.Close(); err != nil {
		t.Error(err)
	}
	// Close hands the unused values back; the release may itself be lost to
	// an injected fault (then they are a gap), so it is logged, not failed.
	if err := db.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	t.Logf("%d values, %d errors", values, errs)
}

// TestOutage stops the store for longer than the buffer while a process
// draws values steadily (connections refused, requests held unanswered, or
// requests applied and their answers lost): values keep coming from the cache, then each call
// fails with seqcache.ErrUnavailable within seqshim.max_wait (plus a margin
// for scheduling; never hanging until the caller's own deadline), and once
// the store is back values come again without reopening anything. Each
// mode runs with the recovery of lost answers (seqshim.recovery) on and
// off, and reports the values wasted: issued by the store, once the
// process closed (handing its unused values back), and never handed out.
func TestOutage(t *testing.T) {
	pg := testenv.PG(t)
	endpoint := testenv.DynamoDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := testenv.NewDynamoTable(t) // the store on it talks to dynalite directly, not through a proxy
	store, table := d.Store(), d.Name
	const (
		buffer  = time.Second
		maxWait = 500 * time.Millisecond
		outage  = 4 * time.Second // well beyond the buffer
		// margin is how much longer than max_wait a failing call may take.
		// The wait itself is bounded by max_wait in seqcache (Handle.Next's
		// timer; the caller's 30 s deadline is far beyond it). Around it
		// the driver makes no store call: database/sql hands out the idle
		// connection (pgx's ResetSession pings PostgreSQL, directly, not
		// through the proxy, at most once a second), the plan comes from
		// its cache, the error is labelled: well under a millisecond on an
		// idle machine, plus one local round trip at most. The rest is for
		// a loaded 2-core VM running tests under -race, where waking a
		// goroutine or a GC pause can take tens, now and then hundreds, of
		// milliseconds. A call that hangs for the outage (4 s) or until its
		// own deadline still fails the check.
		margin = time.Second
	)
	type outageCase struct {
		name     string
		mode     torture.Mode
		recovery string
	}
	var cases []outageCase
	for _, m := range []struct {
		name string
		mode torture.Mode
	}{
		{"refused", torture.Refuse},
		{"blackholed", torture.Blackhole},
		{"answers lost", torture.Swallow},
	} {
		for _, rec := range []string{"on", "off"} {
			cases = append(cases, outageCase{m.name, m.mode, rec})
		}
	}
	for _, tt := range cases {
		t.Run(tt.name+"/recovery "+tt.recovery, func(t *testing.T) {
			seq := "outage_" + strings.ReplaceAll(tt.name, " ", "_") + "_" + tt.recovery
			if err := store.Create(ctx, seq, sequence.DefaultSpec(), sequence.DefaultSpec().Initial()); err != nil {
				t.Fatal(err)
			}
			proxy, err := torture.StartProxy(endpoint, torture.Faults{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer proxy.Close()
			db, err := sql.Open("seqshim", tortureDSN(t, pg, table, proxy.URL(), map[string]string{
				"seqshim.buffer":         buffer.String(),
				"seqshim.min_threshold":  "200",
				"seqshim.max_wait":       maxWait.String(),
				"seqshim.refill_timeout": "250ms",
				"seqshim.recovery":       tt.recovery,
			}))
			if err != nil {
				t.Fatal(err)
			}
			closed := false
			defer func() {
				if !closed {
					db.Close()
				}
			}()
			q := "SELECT nextval('" + seq + "')"
			var values []int64
			// draw makes one call with a deadline far beyond max_wait, so
			// that an error within the bound can only be seqshim's own.
			draw := func() (time.Duration, error) {
				ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				t0 := time.Now()
				var v int64
				err := db.QueryRowContext(ctx, q).Scan(&v)
				if err == nil {
					values = append(values, v)
				}
				return time.Since(t0), err
			}
			// bounded checks that a call that failed did so within max_wait.
			bounded := func(when string, d time.Duration, err error) {
				if d > maxWait+margin {
					t.Errorf("%s: a call failed after %v, want within max_wait %v (+ %v margin): %v",
						when, d.Round(time.Millisecond), maxWait, margin, err)
				}
			}
			steady := func(d time.Duration, f func(time.Duration, error) bool) {
				for end := time.Now().Add(d); time.Now().Before(end); {
					if !f(draw()) {
						return
					}
					time.Sleep(time.Millisecond)
				}
			}

			steady(2*time.Second, func(_ time.Duration, err error) bool {
				if err != nil {
					t.Fatalf("before the outage: %v", err)
				}
				return true
			})
			before := len(values)

			proxy.SetMode(tt.mode)
			cached, errs := 0, 0
			var slowest time.Duration
			steady(outage, func(d time.Duration, err error) bool {
				if err == nil {
					if errs > 0 {
						t.Errorf("a value after the cache ran dry, with the store stopped")
					}
					cached++
					return true
				}
				if errs == 0 {
					t.Logf("first error, %d values into the outage: %v", cached, err)
				}
				errs++
				slowest = max(slowest, d)
				bounded("during the outage", d, err)
				if !errors.Is(err, seqcache.ErrUnavailable) {
					t.Errorf("during the outage: %v, want an error wrapping seqcache.ErrUnavailable", err)
				}
				return true
			})
			if cached == 0 {
				t.Error("no value came from the cache once the store stopped")
			}
			if errs == 0 {
				t.Errorf("%d values and no error during a %v outage with a %v buffer", cached, outage, buffer)
			}

			proxy.SetMode(torture.Serve)
			back := time.Now()
			recovered := time.Duration(0)
			steady(30*time.Second, func(d time.Duration, err error) bool {
				if err == nil {
					recovered = time.Since(back)
					return false
				}
				if !errors.Is(err, seqcache.ErrUnavailable) {
					t.Errorf("after the outage: %v", err)
				}
				bounded("after the outage", d, err)
				return true
			})
			if recovered == 0 {
				t.Fatal("no value within 30s of the store coming back")
			}
			steady(500*time.Millisecond, func(_ time.Duration, err error) bool {
				if err != nil {
					t.Errorf("after recovery: %v", err)
				}
				return err == nil
			})
			for i := 1; i < len(values); i++ {
				if values[i] <= values[i-1] {
					t.Fatalf("value %d after %d (call %d)", values[i], values[i-1], i)
				}
			}
			// Close hands the unused values back (through the proxy, serving
			// again); what the store issued beyond the values drawn is waste.
			closed = true
			if err := db.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			info, err := store.Describe(ctx, seq)
			if err != nil {
				t.Fatal(err)
			}
			issued := info.Position.Last - sequence.DefaultSpec().Start + 1
			if !info.Position.Called {
				issued--
			}
			wasted := issued - int64(len(values))
			if wasted < 0 {
				t.Errorf("%d values drawn, the store issued %d", len(values), issued)
			}
			tortureSummary(t, fmt.Sprintf("outage (%s): %d values before; store stopped %v (buffer %v): %d more values from the cache, then %d errors, all ErrUnavailable (slowest call %v, max_wait %v); recovered %v after the store came back, without a restart; %d values, none repeated or backwards; %d wasted (%.1f%% of %d issued) (recovery %s)",
				tt.name, before, outage, buffer, cached, errs, slowest.Round(time.Millisecond), maxWait, recovered.Round(time.Millisecond), len(values),
				wasted, torturePct(wasted, issued), issued, tt.recovery))
		})
	}
}

// tortureDSN is the PostgreSQL URL with seqshim's store on table through the
// proxy endpoint, and the given seqshim parameters.
func tortureDSN(t *testing.T, pg, table, endpoint string, params map[string]string) string {
	t.Helper()
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("seqshim.store", testenv.DynamoTable{Endpoint: endpoint, Name: table}.URL(""))
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// tortureSummary prints a summary line and hands it to testenv.Summary.
func tortureSummary(t *testing.T, line string) {
	fmt.Println(line)
	testenv.Summary(t, line)
}

func tortureEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

func tortureEnvDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		t.Fatalf("%s=%q: want a duration such as 60s", name, s)
	}
	return d
}

func torturePct(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

func tortureTail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
