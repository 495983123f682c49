package conformance_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/seqshim/seqshim/driver" // driver "seqshim"
	"github.com/seqshim/seqshim/internal/storeurl"
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
	envChildStats      = "SEQSHIM_TORTURE_CHILD_STATS"    // "1": write the store's request counts beside the record (tortureChildStats)
)

// The fault mix between the processes and the store during a torture run.
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
	modes, duration, seed := tortureSchedule(t, envTortureDuration, 45*time.Second, 15*time.Second)
	for _, mode := range modes {
		t.Run("recovery "+mode, func(t *testing.T) {
			d := testenv.NewDynamoTable(t) // the store on it talks to dynalite directly, not through a proxy
			tortureRun(t, pg, tortureStore{
				store:    d.Store(),
				upstream: endpoint,
				url: func(proxyURL string) string {
					return testenv.DynamoTable{Endpoint: proxyURL, Name: d.Name}.URL("")
				},
				env:         []string{"AWS_ACCESS_KEY_ID=seqshim", "AWS_SECRET_ACCESS_KEY=seqshim", "AWS_EC2_METADATA_DISABLED=true"},
				lostAnswers: true,
			}, mode, duration, seed)
		})
	}
}

// tortureSchedule reads the knobs of a torture test's runs: the recovery
// modes to run (envTortureRecovery), the duration of each (durationVar,
// default def, short with -short, shared by the modes) and the seed.
func tortureSchedule(t *testing.T, durationVar string, def, short time.Duration) (modes []string, each time.Duration, seed uint64) {
	t.Helper()
	duration := tortureEnvDuration(t, durationVar, def)
	if testing.Short() && os.Getenv(durationVar) == "" {
		duration = short
	}
	modes = []string{"on", "off"}
	switch m := os.Getenv(envTortureRecovery); m {
	case "", "both":
	case "on", "off":
		modes = []string{m}
	default:
		t.Fatalf("%s=%q: want on, off or both", envTortureRecovery, m)
	}
	seed = uint64(time.Now().UnixNano())
	if s := os.Getenv(envTortureSeed); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s: %v", envTortureSeed, err)
		}
	}
	return modes, duration / time.Duration(len(modes)), seed
}

// tortureStore is the store of one torture run: the store itself, reached
// directly, and how the children reach it through the fault proxy.
type tortureStore struct {
	name     string         // in the summary line, "torture (NAME):"; "torture:" when empty
	store    sequence.Store // reached directly, not through the proxy: creates the sequence, reads where it ended
	upstream string         // what the fault proxy forwards to, http://HOST:PORT
	// url is the children's store URL through the proxy at proxyURL. It is
	// called once the proxy runs, before any child starts.
	url func(proxyURL string) string
	env []string // the children's environment, besides the run's own
	// lostAnswers: the proxy tells the reservations the store applied
	// whose answers it dropped (it reads dynamostore's UpdateItem only), so
	// the run reports them and checks recovery by them.
	lostAnswers bool
	// stats: the children write their store's request counts
	// (tortureChildStats), which the summary line adds up.
	stats bool
}

// tortureRun is one run of a torture test on ts, with seqshim.recovery set
// to recovery.
func tortureRun(t *testing.T, pg string, ts tortureStore, recovery string, duration time.Duration, seed uint64) {
	procs := tortureEnvInt(t, envTortureProcs, 8)
	goroutines := tortureEnvInt(t, envTortureGoroutines, 32)
	pace := tortureEnvDuration(t, envTorturePace, 2*time.Millisecond)
	t.Logf("%d processes × %d goroutines for %v, seed %d (%s=%d repeats the schedule)", procs, goroutines, duration, seed, envTortureSeed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))

	ctx, cancel := context.WithTimeout(context.Background(), duration+5*time.Minute)
	defer cancel()
	const seq = "torture_seq"
	store := ts.store
	spec := sequence.DefaultSpec()
	if err := store.Create(ctx, seq, spec, spec.Initial()); err != nil {
		t.Fatal(err)
	}
	proxy, err := torture.StartProxy(ts.upstream, tortureFaults, seed)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()

	// Small blocks and a short buffer: many store calls, so many faults.
	dsn := tortureStoreDSN(t, pg, ts.url(proxy.URL()), map[string]string{
		"seqshim.buffer":         "200ms",
		"seqshim.max_block":      "1000",
		"seqshim.max_wait":       "3s",
		"seqshim.refill_timeout": "1s",
		"seqshim.recovery":       recovery,
	})
	env := append(append(os.Environ(), ts.env...),
		envChildDSN+"="+dsn, envChildSeq+"="+seq,
		envChildGoroutines+"="+strconv.Itoa(goroutines), envChildPace+"="+pace.String(),
		envChildLifetime+"="+(duration+2*time.Minute).String())
	if ts.stats {
		env = append(env, envChildStats+"=1")
	}

	pool := startChildren(t, procs, "TestTortureChild", envChildRecord, env)

	deadline := time.Now().Add(duration)
	for {
		pause := 300*time.Millisecond + time.Duration(rng.Int64N(int64(1200*time.Millisecond)))
		if time.Until(deadline) < pause {
			break
		}
		time.Sleep(pause)
		pool.replace(rng)
	}
	time.Sleep(time.Until(deadline))
	stopping := time.Now()
	pool.stopAll()
	t.Logf("children stopped in %v", time.Since(stopping).Round(time.Millisecond))
	faults := proxy.Counts()

	recs, rep := pool.check(ctx, t, store, seq, spec.Start)
	label := "torture"
	if ts.name != "" {
		label += " (" + ts.name + ")"
	}
	line := fmt.Sprintf("%s: %d values, %d duplicates, %d backwards, %d out of range, %d wasted (%.1f%% of %d issued), %d kills, %d clean restarts, %d processes recorded, %d errors; faults: %d of %d store requests answered, %d dropped after the store applied them, %d reset, %d delayed",
		label, rep.Values, rep.Duplicates, rep.Backwards, rep.OutOfRange, rep.Wasted, torturePct(rep.Wasted, rep.Issued), rep.Issued,
		pool.kills, pool.graceful, rep.Incarnations, rep.Errors, faults.Forwarded, faults.Requests, faults.Dropped, faults.Reset, faults.Delayed)
	if ts.lostAnswers {
		// The reservations whose answer the proxy dropped: their values
		// are handed out only if recovered.
		var lostBlocks [][2]int64
		dropped := proxy.Dropped()
		for _, r := range dropped {
			first, last := r.Block(spec.Increment)
			lostBlocks = append(lostBlocks, [2]int64{first, last})
		}
		lostValues, lostServed := torture.LostAnswers(recs, lostBlocks)
		line += fmt.Sprintf("; %d reservations' answers lost (%d values), %d of those values handed out, %d wasted",
			len(dropped), lostValues, lostServed, lostValues-lostServed)
		switch {
		case recovery == "off" && lostServed != 0:
			t.Errorf("recovery off: %d values of reservations whose answer was lost were handed out", lostServed)
		case recovery == "on" && len(dropped) >= 10 && lostServed == 0:
			t.Errorf("recovery on: none of the %d reservations whose answer was lost was recovered", len(dropped))
		}
	}
	if ts.stats {
		st, n, err := readTortureStats(pool.dir)
		if err != nil {
			t.Fatal(err)
		}
		line += fmt.Sprintf("; the children's stores (%d of them): %d requests, %d conflicts (412) retried, %d throttled (429), %.0f RU",
			n, st.Requests, st.Conflicts, st.Throttles, st.RequestUnits)
	}
	line += " (recovery " + recovery + ")"
	tortureSummary(t, line)
	if !rep.OK() {
		t.Errorf("the records show values handed out twice, backwards or out of range: %q", rep.Examples)
	}
	// A process killed while starting leaves no record file: fewer files
	// than incarnations is fine, no value at all is not.
	if rep.Values == 0 || rep.Incarnations > procs+pool.kills+pool.graceful {
		t.Errorf("%d values from %d record files of %d processes started", rep.Values, rep.Incarnations, procs+pool.kills+pool.graceful)
	}
	// The run must have exercised what it claims to.
	if pool.kills == 0 || faults.Dropped+faults.Reset+faults.Delayed == 0 {
		t.Errorf("too short to test anything: %d kills, faults %+v (raise %s or %s)", pool.kills, faults, envTortureDuration, envTortureCosmosDuration)
	}
	pool.checkLogs()
	for _, rec := range recs {
		for _, e := range rec.Errors {
			if !strings.Contains(e, seqcache.ErrUnavailable.Error()) {
				t.Errorf("%s: unexpected error %q", rec.Name, e)
				break
			}
		}
	}
}

// TestTortureChild is one process of TestTorture or TestTortureCosmos,
// which start it by running the test binary again; on its own it skips.
func TestTortureChild(t *testing.T) {
	path, goroutines, pace, ctx := childSettings(t, "TestTorture", envChildRecord, envChildGoroutines, envChildPace, envChildLifetime)
	writeStats := func() {}
	if os.Getenv(envChildStats) == "1" {
		writeStats = tortureChildStats(t, ctx, strings.TrimSuffix(path, ".rec")+".stats")
	}
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
	writeStats()
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
	return tortureStoreDSN(t, pg, testenv.DynamoTable{Endpoint: endpoint, Name: table}.URL(""), params)
}

// tortureStoreDSN is the PostgreSQL URL with seqshim's store at storeURL,
// and the given seqshim parameters.
func tortureStoreDSN(t *testing.T, pg, storeURL string, params map[string]string) string {
	t.Helper()
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("seqshim.store", storeURL)
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

// The knob of TestTortureDatabases, and what it tells a child process
// (TestTortureDatabasesChild).
const (
	envTortureDBDuration = "SEQSHIM_TORTURE_DATABASES_DURATION" // how long rows are inserted (default 24s; 16s with -short)

	envDBChildRecord     = "SEQSHIM_TORTURE_DB_CHILD_RECORD" // record file; set only in a child
	envDBChildDSNs       = "SEQSHIM_TORTURE_DB_CHILD_DSNS"   // the databases' DSNs, one a line
	envDBChildGoroutines = "SEQSHIM_TORTURE_DB_CHILD_GOROUTINES"
	envDBChildPace       = "SEQSHIM_TORTURE_DB_CHILD_PACE"
	envDBChildLifetime   = "SEQSHIM_TORTURE_DB_CHILD_LIFETIME"
)

// tortureDBs is the number of databases of TestTortureDatabases; the first
// one is dropped and created again.
const tortureDBs = 3

// tortureDBMigration is the schema of every database of
// TestTortureDatabases, run through seqshim: items.id draws from the
// store's items_id_seq, shared by the databases. gen is the incarnation of
// the database a row went into ('g1', then 'g2' for the one created again),
// returned by every INSERT so that the children know where each id went.
const tortureDBMigration = "CREATE TABLE items (id bigserial PRIMARY KEY, gen text NOT NULL DEFAULT '%s', proc text NOT NULL)"

// TestTortureDatabases (issue 25, many databases, one id space): child
// processes insert rows into the same table of three databases through
// seqshim and one store (dynalite; a sqlite: file without it), the ids
// left to the default (items_id_seq, one counter the three databases
// share), while a controller SIGKILLs and restarts processes (now and then
// stops one cleanly) and, a quarter of the way through, drops the first
// database WITH (FORCE), creates it again under the same name and runs the
// migration on it again through seqshim: a new member of the store's
// sequence, whose counter must go on past every value handed out. The
// children see the drop as errors on that database (connections
// terminated, database missing, table missing, and NOT NULL on id while a
// process still uses the column defaults it read before the migration, for
// at most the engine's defaults TTL) and keep trying; on the other two
// databases no statement may fail.
//
// Every child records each id an INSERT … RETURNING gave it, with the
// database and incarnation it went into: the rows of the dropped
// incarnation go with it, not their ids. At the end, the ids of the
// three tables and every id recorded must show no id twice (in two
// databases, two incarnations, or recorded twice), none going backwards
// within a process and none beyond what the store issued; every row
// recorded in a live database must be in its table, and both incarnations
// of the first database must have had rows.
func TestTortureDatabases(t *testing.T) {
	pg := testenv.PG(t)
	duration := tortureEnvDuration(t, envTortureDBDuration, 24*time.Second)
	if testing.Short() && os.Getenv(envTortureDBDuration) == "" {
		duration = 16 * time.Second
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(envTortureSeed); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s: %v", envTortureSeed, err)
		}
	}
	procs := tortureEnvInt(t, envTortureProcs, 6)
	goroutines := tortureEnvInt(t, envTortureGoroutines, 3)
	pace := tortureEnvDuration(t, envTorturePace, 10*time.Millisecond)
	t.Logf("%d processes × %d goroutines for %v, seed %d (%s=%d repeats the schedule)", procs, goroutines, duration, seed, envTortureSeed, seed)
	rng := rand.New(rand.NewPCG(seed, 2))

	// The store: dynalite, or a sqlite: file when there is none (unless
	// components are required: then its absence fails the test).
	var storeURL, storeKind string
	env := slices.Clip(os.Environ())
	if os.Getenv(testenv.EnvDynamoDB) != "" || testenv.Required() {
		testenv.DynamoDB(t)
		storeURL, storeKind = testenv.NewDynamoTable(t).URL(""), "dynamodb"
		env = append(env, "AWS_ACCESS_KEY_ID=seqshim", "AWS_SECRET_ACCESS_KEY=seqshim", "AWS_EC2_METADATA_DISABLED=true")
		testenv.DynamoDBEnv(t) // for this process's own store handles
	} else {
		storeURL, storeKind = "sqlite:"+filepath.Join(t.TempDir(), "seq.db"), "sqlite"
		t.Logf("no dynalite (%s unset): the store is a sqlite: file", testenv.EnvDynamoDB)
	}

	ctx, cancel := context.WithTimeout(context.Background(), duration+5*time.Minute)
	defer cancel()
	admin, err := sql.Open("pgx", pg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() }) // after the databases' cleanups, which use it
	names := make([]string, tortureDBs)
	dsns := make([]string, tortureDBs)
	unique := "torture_db_" + randHex(4)
	for i := range names {
		names[i] = fmt.Sprintf("%s_%d", unique, i)
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+names[i]+" STRATEGY FILE_COPY"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+names[i]+" WITH (FORCE)"); err != nil {
				t.Errorf("drop database: %v", err)
			}
		})
		u, err := url.Parse(pg)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + names[i]
		// Small blocks and a short buffer: many reservations, interleaved
		// across the processes and the databases.
		dsns[i] = withParams(t, withStore(t, u.String(), storeURL), "seqshim.buffer=200ms&seqshim.max_block=200")
	}
	// migrate runs the schema on database i through seqshim.
	migrate := func(i int, gen string) error {
		db, err := sql.Open("seqshim", dsns[i])
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.ExecContext(ctx, fmt.Sprintf(tortureDBMigration, gen))
		return err
	}
	// The three at once: one creates items_id_seq, the others attach.
	migrated := make(chan error, tortureDBs)
	for i := range tortureDBs {
		go func() { migrated <- migrate(i, "g1") }()
	}
	for range tortureDBs {
		if err := <-migrated; err != nil {
			t.Fatalf("migration: %v", err)
		}
	}
	oldID := tortureDatabaseID(t, ctx, admin, names[0])

	env = append(env,
		envDBChildDSNs+"="+strings.Join(dsns, "\n"),
		envDBChildGoroutines+"="+strconv.Itoa(goroutines), envDBChildPace+"="+pace.String(),
		envDBChildLifetime+"="+(duration+2*time.Minute).String())
	pool := startChildren(t, procs, "TestTortureDatabasesChild", envDBChildRecord, env)

	// The schedule: a kill (or a clean stop) every 0.5 to 2 s; the first
	// database dropped and created again a quarter of the way through.
	var dropped, recreated time.Time
	begin := time.Now()
	deadline := begin.Add(duration)
	for {
		pause := 500*time.Millisecond + time.Duration(rng.Int64N(int64(1500*time.Millisecond)))
		if dropped.IsZero() {
			pause = min(pause, max(0, time.Until(begin.Add(duration/4))))
		}
		if time.Until(deadline) < pause {
			break
		}
		time.Sleep(pause)
		if dropped.IsZero() && time.Since(begin) >= duration/4 {
			dropped = time.Now()
			if _, err := admin.ExecContext(ctx, "DROP DATABASE "+names[0]+" WITH (FORCE)"); err != nil {
				t.Fatalf("drop database: %v", err)
			}
			if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+names[0]+" STRATEGY FILE_COPY"); err != nil {
				t.Fatalf("create database again: %v", err)
			}
			if err := migrate(0, "g2"); err != nil {
				t.Fatalf("migration of the database created again: %v", err)
			}
			recreated = time.Now()
			t.Logf("database %s dropped %v into the run, created again and migrated in %v",
				names[0], dropped.Sub(begin).Round(time.Millisecond), recreated.Sub(dropped).Round(time.Millisecond))
			continue
		}
		pool.replace(rng)
	}
	if dropped.IsZero() {
		t.Fatalf("the run (%v) ended before the drop", duration)
	}
	time.Sleep(time.Until(deadline))
	pool.stopAll()
	newID := tortureDatabaseID(t, ctx, admin, names[0])

	// What the store issued, and which databases have the sequence: the
	// three, and the dropped incarnation of the first (a DROP DATABASE
	// never reaches seqshim: it stays a member, harmlessly).
	st, err := storeurl.Open(ctx, storeURL)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := st.(io.Closer); ok {
		defer c.Close()
	}
	info, err := st.Describe(ctx, "items_id_seq")
	if err != nil {
		t.Fatal(err)
	}
	last := info.Position.Last
	if !info.Position.Called {
		last--
	}
	wantMembers := []string{oldID, newID}
	for _, name := range names[1:] {
		wantMembers = append(wantMembers, tortureDatabaseID(t, ctx, admin, name))
	}
	slices.Sort(wantMembers)
	var members []string
	for _, m := range info.Spec.Members {
		members = append(members, m.DB)
	}
	if !slices.Equal(members, wantMembers) {
		t.Errorf("items_id_seq has the members %v, want %v (the three databases and the dropped incarnation)", members, wantMembers)
	}
	if l, err := st.List(ctx); err != nil || len(l) != 1 {
		t.Errorf("the store has %d sequences (%v), want items_id_seq alone", len(l), err)
	}

	// What the children recorded.
	files, err := pool.records()
	if err != nil {
		t.Fatal(err)
	}
	var recs []torture.Record
	recorded := map[int64][]string{} // id → where each record of it says it went ("db/gen")
	errCodes := map[string]int{}     // errors on the first database after the drop, by SQLSTATE
	errExample := map[string]string{}
	unexpected := 0
	hit, recovered := 0, 0 // processes that saw errors on the first database; of them, those that inserted into it again
	for _, f := range files {
		rows, errs, err := readTortureDBRecord(f)
		if err != nil {
			t.Fatal(err)
		}
		rec := torture.Record{Name: filepath.Base(f)}
		for _, r := range rows {
			rec.Values = append(rec.Values, r.Drawn)
			recorded[r.Value] = append(recorded[r.Value], fmt.Sprintf("%d/%s", r.db, r.gen))
		}
		var lastErr, lastRow time.Duration = -1, -1 // on the first database, since the process began
		for _, r := range rows {
			if r.db == 0 {
				lastRow = time.Duration(r.End)
			}
		}
		for _, e := range errs {
			if e.db == 0 {
				lastErr = e.since
			}
		}
		if lastErr >= 0 {
			hit++
			if lastRow > lastErr {
				recovered++
			}
		}
		for _, e := range errs {
			rec.Errors = append(rec.Errors, e.msg)
			code := tortureSQLState(e.msg)
			if code == "23505" || e.db != 0 || e.at.Before(dropped) {
				unexpected++
				if unexpected <= 10 {
					t.Errorf("%s: error on database %d %v after the start (the drop was at %v): %s",
						rec.Name, e.db, e.at.Sub(begin).Round(time.Millisecond), dropped.Sub(begin).Round(time.Millisecond), e.msg)
				}
				continue
			}
			errCodes[code]++
			if _, ok := errExample[code]; !ok {
				errExample[code] = e.msg
			}
		}
		recs = append(recs, rec)
	}
	rep := torture.Check(recs, sequence.DefaultSpec().Start, last)

	// What the tables hold, and every id in one place: an id recorded or
	// held in two places (databases or incarnations) is a duplicate.
	where := map[int64]string{}
	dups := 0
	var examples []string
	place := func(id int64, p, what string) {
		if q, ok := where[id]; ok && q != p {
			dups++
			if len(examples) < 10 {
				examples = append(examples, fmt.Sprintf("id %d in %s and %s (%s)", id, q, p, what))
			}
			return
		}
		where[id] = p
	}
	for id, ps := range recorded {
		for _, p := range ps {
			place(id, p, "recorded")
		}
	}
	inTables, lostRows, newRows := 0, 0, 0
	inTable := map[string]bool{} // "db/gen/id"
	for i, name := range names {
		u, err := url.Parse(pg)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		db, err := sql.Open("pgx", u.String())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.QueryContext(ctx, "SELECT id, gen FROM items")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			var gen string
			if err := rows.Scan(&id, &gen); err != nil {
				t.Fatal(err)
			}
			p := fmt.Sprintf("%d/%s", i, gen)
			place(id, p, "in the tables")
			inTable[fmt.Sprintf("%s/%d", p, id)] = true
			inTables++
			if i == 0 {
				newRows++
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	missing := 0
	for id, ps := range recorded {
		for _, p := range ps {
			if p == "0/g1" {
				lostRows++ // went with the dropped incarnation
				continue
			}
			if !inTable[fmt.Sprintf("%s/%d", p, id)] {
				if missing++; missing <= 10 {
					t.Errorf("id %d: an INSERT into %s returned it, the table does not have it", id, p)
				}
			}
		}
	}

	var codes []string
	for c, n := range errCodes {
		codes = append(codes, fmt.Sprintf("%s×%d", c, n))
		t.Logf("errors %s on the dropped database, e.g. %s", c, errExample[c])
	}
	slices.Sort(codes)
	line := fmt.Sprintf("torture-databases: %d processes, %d rows on %d databases (one dropped and created again: %d rows recorded in the dropped incarnation, %d in the new one), %d duplicates, %d backwards, %d out of range, %d ids recorded, %d rows recorded missing, %d kills, %d clean restarts; errors on the dropped database: %s (%d processes saw them, %d of them inserted into it again afterwards); %d unexpected errors; store %s, %d reservations",
		rep.Incarnations, inTables, tortureDBs, lostRows, newRows, rep.Duplicates+dups, rep.Backwards, rep.OutOfRange, rep.Values, missing,
		pool.kills, pool.graceful, strings.Join(codes, " "), hit, recovered, unexpected, storeKind, info.Reservations)
	tortureSummary(t, line)
	if !rep.OK() || dups > 0 {
		t.Errorf("ids handed out twice, backwards or out of range: %q %q", rep.Examples, examples)
	}
	if lostRows == 0 || newRows == 0 {
		t.Errorf("the first database had %d rows recorded before the drop and %d after: the run tested nothing", lostRows, newRows)
	}
	if pool.kills == 0 {
		t.Errorf("no process was killed: raise %s", envTortureDBDuration)
	}
	pool.checkLogs()
}

// tortureDatabaseID is the identity seqshim gives database name
// (sequence.DatabaseID).
func tortureDatabaseID(t *testing.T, ctx context.Context, admin *sql.DB, name string) string {
	t.Helper()
	var system, oid string
	if err := admin.QueryRowContext(ctx, `SELECT (SELECT system_identifier::text FROM pg_control_system()),
		(SELECT oid::text FROM pg_database WHERE datname = $1)`, name).Scan(&system, &oid); err != nil {
		t.Fatal(err)
	}
	return sequence.DatabaseID(system, oid, name)
}

var sqlState = regexp.MustCompile(`\(SQLSTATE ([0-9A-Z]{5})\)`)

// tortureSQLState is the SQLSTATE in an error's text, or "connection" for an
// error without one (the connection went away).
func tortureSQLState(msg string) string {
	if m := sqlState.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return "connection"
}

// A TestTortureDatabasesChild record file has one line per outcome:
//
//	v DB GEN GOROUTINE START END ID   an INSERT into database DB (incarnation GEN) returned ID;
//	                                  START, END: ns since the process began
//	e DB GOROUTINE UNIXNANO SINCE MESSAGE   an INSERT into database DB failed at wall time UNIXNANO,
//	                                        SINCE ns after the process began
//
// A process killed mid-write leaves a last line without '\n': ignored.
type tortureDBRow struct {
	torture.Drawn
	db  int
	gen string
}

type tortureDBError struct {
	db    int
	at    time.Time
	since time.Duration
	msg   string
}

func readTortureDBRecord(path string) (rows []tortureDBRow, errs []tortureDBError, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if i := strings.LastIndexByte(string(data), '\n'); i+1 < len(data) {
		data = data[:i+1]
	}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		bad := fmt.Errorf("%s: malformed line %q", path, line)
		switch {
		case strings.HasPrefix(line, "v "):
			f := strings.Fields(line)
			if len(f) != 7 {
				return nil, nil, bad
			}
			var r tortureDBRow
			var g int64
			var es [5]error
			r.db, es[0] = strconv.Atoi(f[1])
			r.gen = f[2]
			g, es[1] = strconv.ParseInt(f[3], 10, 32)
			r.Start, es[2] = strconv.ParseInt(f[4], 10, 64)
			r.End, es[3] = strconv.ParseInt(f[5], 10, 64)
			r.Value, es[4] = strconv.ParseInt(f[6], 10, 64)
			if e := errors.Join(es[:]...); e != nil {
				return nil, nil, fmt.Errorf("%w: %w", bad, e)
			}
			r.G = int(g)
			rows = append(rows, r)
		case strings.HasPrefix(line, "e "):
			f := strings.SplitN(line, " ", 6)
			if len(f) != 6 {
				return nil, nil, bad
			}
			var e tortureDBError
			var ns, since int64
			var es [3]error
			e.db, es[0] = strconv.Atoi(f[1])
			ns, es[1] = strconv.ParseInt(f[3], 10, 64)
			since, es[2] = strconv.ParseInt(f[4], 10, 64)
			if err := errors.Join(es[:]...); err != nil {
				return nil, nil, fmt.Errorf("%w: %w", bad, err)
			}
			e.at, e.since, e.msg = time.Unix(0, ns), time.Duration(since), f[5]
			errs = append(errs, e)
		default:
			return nil, nil, bad
		}
	}
	return rows, errs, nil
}

// TestTortureDatabasesChild is one process of TestTortureDatabases, which
// starts it by running the test binary again; on its own it skips. Each
// goroutine inserts rows into a database chosen at random, through seqshim,
// and records what each INSERT gave it, until stdin closes.
func TestTortureDatabasesChild(t *testing.T) {
	path, goroutines, pace, ctx := childSettings(t, "TestTortureDatabases", envDBChildRecord, envDBChildGoroutines, envDBChildPace, envDBChildLifetime)
	var dbs []*sql.DB
	for dsn := range strings.SplitSeq(os.Getenv(envDBChildDSNs), "\n") {
		db, err := sql.Open("seqshim", dsn)
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(4)
		db.SetMaxIdleConns(4)
		dbs = append(dbs, db)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now()
	var mu sync.Mutex // guards w
	w := bufio.NewWriterSize(f, 64<<10)
	flushed := make(chan struct{})
	go func() { // flush often: a SIGKILL loses at most the last 10ms
		defer close(flushed)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				mu.Lock()
				w.Flush()
				mu.Unlock()
			}
		}
	}()
	proc := filepath.Base(path)
	var wg sync.WaitGroup
	var rowsN, errsN atomic.Int64
	for g := range goroutines {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := rand.IntN(len(dbs))
				start := time.Since(base)
				var id int64
				var gen string
				callCtx, callCancel := context.WithTimeout(ctx, 10*time.Second)
				err := dbs[i].QueryRowContext(callCtx, "INSERT INTO items (proc) VALUES ($1) RETURNING id, gen", proc).Scan(&id, &gen)
				callCancel()
				end := time.Since(base)
				pause := time.Duration(rand.Int64N(int64(2*pace) + 1))
				if err != nil {
					if ctx.Err() != nil {
						return // stopping
					}
					mu.Lock()
					fmt.Fprintf(w, "e %d %d %d %d %s\n", i, g, time.Now().UnixNano(), end, strings.ReplaceAll(err.Error(), "\n", " "))
					mu.Unlock()
					errsN.Add(1)
					pause = 20 * time.Millisecond
				} else {
					mu.Lock()
					fmt.Fprintf(w, "v %d %s %d %d %d %d\n", i, gen, g, start, end, id)
					mu.Unlock()
					rowsN.Add(1)
				}
				select {
				case <-ctx.Done():
				case <-time.After(pause):
				}
			}
		})
	}
	wg.Wait()
	<-flushed
	mu.Lock()
	err = w.Flush()
	mu.Unlock()
	if err != nil {
		t.Error(err)
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
	for _, db := range dbs {
		if err := db.Close(); err != nil {
			t.Logf("close: %v", err)
		}
	}
	t.Logf("%d rows, %d errors", rowsN.Load(), errsN.Load())
}
