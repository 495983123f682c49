package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx": the native baseline

	_ "github.com/seqshim/seqshim/driver" // driver "seqshim"
	"github.com/seqshim/seqshim/internal/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
)

type config struct {
	out       string
	rounds    int
	storeTime time.Duration
	rate      int
	pg        string
	dynamo    string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.out, "o", "BENCHMARKS.md", "file to write")
	fs.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds per comparison")
	fs.DurationVar(&cfg.storeTime, "store-time", 15*time.Second, "length of the steady-rate run for store writes")
	fs.IntVar(&cfg.rate, "rate", 10_000, "values per second of the steady-rate run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.rounds < 1 || cfg.rate < 1 || cfg.storeTime < 3*time.Second {
		return errors.New("want -rounds >= 1, -rate >= 1, -store-time >= 3s")
	}
	cfg.pg = os.Getenv(testenv.EnvPG)
	cfg.dynamo = os.Getenv(testenv.EnvDynamoDB)
	if cfg.pg == "" {
		return fmt.Errorf("%s is unset: run it in the test environment, from the repository root: %s", testenv.EnvPG, command)
	}
	if cfg.dynamo != "" && os.Getenv("AWS_ACCESS_KEY_ID") == "" {
		// dynalite accepts any credentials; the SDK's default chain needs some.
		os.Setenv("AWS_ACCESS_KEY_ID", "seqshim")
		os.Setenv("AWS_SECRET_ACCESS_KEY", "seqshim")
		os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	}

	rep := report{Command: command, Date: time.Now().UTC(), Rounds: cfg.rounds, Machine: machine()}
	logf := func(format string, args ...any) { fmt.Fprintf(stdout, format+"\n", args...) }

	hot, err := hotPath(ctx, cfg.rounds, false)
	if err != nil {
		return err
	}
	logf("%s", hot.line())
	hotPar, err := hotPath(ctx, cfg.rounds, true)
	if err != nil {
		return err
	}
	logf("%s", hotPar.line())
	rep.Rows = append(rep.Rows, hot, hotPar)

	pg, err := openPG(ctx, cfg.pg)
	if err != nil {
		return err
	}
	defer pg.close()
	rep.Machine.PostgreSQL = pg.version
	for _, f := range []func(context.Context, *pgPair, int) (row, error){nextval, insert, select1} {
		r, err := f(ctx, pg, cfg.rounds)
		if err != nil {
			return err
		}
		logf("%s", r.line())
		rep.Rows = append(rep.Rows, r)
	}

	sw, err := storeWrites(ctx, cfg, logf)
	if err != nil {
		return err
	}
	rep.Store = sw
	logf("store writes: %.0f per million values (steady), %.0f including warm-up, %s", sw.SteadyPerMillion, sw.TotalPerMillion, sw.Store)

	if err := os.WriteFile(cfg.out, []byte(rep.markdown()), 0o644); err != nil {
		return err
	}
	logf("wrote %s", cfg.out)
	return nil
}

// row is one comparison: a subject against its baseline, both measured in
// every round, the ratio taken per round.
type row struct {
	Name, Subject, Baseline string
	SubjectNs, BaselineNs   []float64 // per round
	SubjectAllocs           float64
	Note                    string
}

func (r row) ratios() []float64 {
	out := make([]float64, len(r.SubjectNs))
	for i := range out {
		out[i] = r.SubjectNs[i] / r.BaselineNs[i]
	}
	return out
}

func (r row) line() string {
	rs := r.ratios()
	return fmt.Sprintf("%s: %s %s vs %s %s: ratio %.3g (%.3g–%.3g)", r.Name,
		r.Subject, fmtNs(median(r.SubjectNs)), r.Baseline, fmtNs(median(r.BaselineNs)),
		median(rs), slices.Min(rs), slices.Max(rs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// hotPath compares seqcache's Handle.Next over an in-memory store with a bare
// atomic add, the floor of any shared counter, alternating which runs first.
func hotPath(ctx context.Context, rounds int, parallel bool) (row, error) {
	store := memstore.New()
	spec := seqcache.DefaultSpec()
	if err := store.Create(ctx, "hot", spec, spec.Initial()); err != nil {
		return row{}, err
	}
	c := seqcache.New(store)
	defer c.Close()
	h := c.Handle("hot")
	var failed atomic.Value
	next := func() {
		if _, err := h.Next(ctx); err != nil {
			failed.Store(err)
		}
	}
	var counter atomic.Int64
	add := func() { counter.Add(1) }
	bench := func(op func()) func(b *testing.B) {
		if parallel {
			return func(b *testing.B) {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						op()
					}
				})
			}
		}
		return func(b *testing.B) {
			for b.Loop() {
				op()
			}
		}
	}
	r := row{Name: "cache hot path", Subject: "seqcache Handle.Next", Baseline: "atomic.AddInt64"}
	if parallel {
		r.Name += fmt.Sprintf(", %d goroutines (GOMAXPROCS)", runtimeProcs())
		r.Note = "testing.B.RunParallel on one sequence / one counter"
	} else {
		r.Note = "one goroutine"
	}
	for i := range rounds {
		var cache, floor testing.BenchmarkResult
		if i%2 == 0 {
			cache, floor = testing.Benchmark(bench(next)), testing.Benchmark(bench(add))
		} else {
			floor, cache = testing.Benchmark(bench(add)), testing.Benchmark(bench(next))
		}
		r.SubjectNs = append(r.SubjectNs, nsPerOp(cache))
		r.BaselineNs = append(r.BaselineNs, nsPerOp(floor))
		r.SubjectAllocs = max(r.SubjectAllocs, float64(cache.AllocsPerOp()))
	}
	if err, _ := failed.Load().(error); err != nil {
		return row{}, fmt.Errorf("hot path: %w", err)
	}
	return r, nil
}

func nsPerOp(r testing.BenchmarkResult) float64 {
	if r.N == 0 {
		return 0
	}
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

// pgPair is a database reached through seqshim (memory store) and natively
// through pgx, each with one connection so every operation uses one session.
type pgPair struct {
	shim, native *sql.DB
	seq          string
	tables       []string
	version      string
}

func openPG(ctx context.Context, pgURL string) (*pgPair, error) {
	p := &pgPair{seq: fmt.Sprintf("bench_seq_%d", rand.Uint32())}
	var err error
	if p.native, err = sql.Open("pgx", pgURL); err != nil {
		return nil, err
	}
	dsn, err := withParam(pgURL, "seqshim.store", "memory:"+p.seq)
	if err != nil {
		return nil, err
	}
	if p.shim, err = sql.Open("seqshim", dsn); err != nil {
		return nil, err
	}
	for _, db := range []*sql.DB{p.shim, p.native} {
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		// The same sequence in the store (through seqshim) and in PostgreSQL.
		if _, err := db.ExecContext(ctx, "CREATE SEQUENCE "+p.seq); err != nil {
			p.close()
			return nil, err
		}
	}
	if err := p.native.QueryRowContext(ctx, "SELECT version() || ', fsync ' || current_setting('fsync')").Scan(&p.version); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *pgPair) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, t := range p.tables {
		p.native.ExecContext(ctx, "DROP TABLE IF EXISTS "+t)
	}
	p.native.ExecContext(ctx, "DROP SEQUENCE IF EXISTS "+p.seq)
	p.shim.Close()
	p.native.Close()
}

// compare runs the two operations alternately, one of each per iteration
// (which goes first alternates too), timing each, so that load drifting on
// a shared machine hits both alike; rounds such runs.
func compare(r row, rounds int, shimOp, nativeOp func() error) (row, error) {
	var failed error
	for range rounds {
		var shim, native time.Duration
		res := testing.Benchmark(func(b *testing.B) {
			shim, native = 0, 0
			timed := func(op func() error, total *time.Duration) {
				t0 := time.Now()
				if err := op(); err != nil && failed == nil {
					failed = err
				}
				*total += time.Since(t0)
			}
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					timed(shimOp, &shim)
					timed(nativeOp, &native)
				} else {
					timed(nativeOp, &native)
					timed(shimOp, &shim)
				}
			}
		})
		if failed != nil {
			return row{}, fmt.Errorf("%s: %w", r.Name, failed)
		}
		n := float64(res.N)
		r.SubjectNs = append(r.SubjectNs, float64(shim.Nanoseconds())/n)
		r.BaselineNs = append(r.BaselineNs, float64(native.Nanoseconds())/n)
	}
	r.SubjectAllocs = testing.AllocsPerRun(200, func() {
		if err := shimOp(); err != nil && failed == nil {
			failed = err
		}
	})
	return r, failed
}

func nextval(ctx context.Context, p *pgPair, rounds int) (row, error) {
	q := "SELECT nextval('" + p.seq + "')"
	var v int64
	return compare(row{Name: "SELECT nextval('s')", Subject: "seqshim", Baseline: "PostgreSQL via pgx",
		Note: "seqshim answers in process, no round trip"}, rounds,
		func() error { return p.shim.QueryRowContext(ctx, q).Scan(&v) },
		func() error { return p.native.QueryRowContext(ctx, q).Scan(&v) })
}

func insert(ctx context.Context, p *pgPair, rounds int) (row, error) {
	var q [2]string
	for i := range q {
		t := fmt.Sprintf("%s_t%d", p.seq, i)
		if _, err := p.native.ExecContext(ctx, "CREATE TABLE "+t+" (id bigint PRIMARY KEY, v text)"); err != nil {
			return row{}, err
		}
		p.tables = append(p.tables, t)
		q[i] = "INSERT INTO " + t + " (id, v) VALUES (nextval('" + p.seq + "'), $1)"
	}
	return compare(row{Name: "INSERT … VALUES (nextval('s'), $1)", Subject: "seqshim", Baseline: "PostgreSQL via pgx",
		Note: "seqshim binds the value as an extra parameter; two tables of the same shape"}, rounds,
		func() error { _, err := p.shim.ExecContext(ctx, q[0], "x"); return err },
		func() error { _, err := p.native.ExecContext(ctx, q[1], "x"); return err })
}

func select1(ctx context.Context, p *pgPair, rounds int) (row, error) {
	var v int
	return compare(row{Name: "SELECT 1 (pass-through)", Subject: "seqshim", Baseline: "pgx",
		Note: "no sequence call: seqshim scans the text once and hands it to pgx"}, rounds,
		func() error { return p.shim.QueryRowContext(ctx, "SELECT 1").Scan(&v) },
		func() error { return p.native.QueryRowContext(ctx, "SELECT 1").Scan(&v) })
}

// withParam adds a query parameter to a URL DSN.
func withParam(dsn, key, value string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("%s: want a postgres:// URL: %w", testenv.EnvPG, err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'f', 2, 64) + " ms"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'f', 1, 64) + " µs"
	case ns >= 100:
		return strconv.FormatFloat(ns, 'f', 0, 64) + " ns"
	}
	return strconv.FormatFloat(ns, 'f', 2, 64) + " ns"
}
