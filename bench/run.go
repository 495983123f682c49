package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

type config struct {
	out       string
	rounds    int
	pgTime    time.Duration
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
	fs.IntVar(&cfg.rounds, "rounds", 5, "rounds of each cache hot-path comparison")
	fs.DurationVar(&cfg.pgTime, "pg-time", 30*time.Second, "time spent on each PostgreSQL comparison")
	fs.DurationVar(&cfg.storeTime, "store-time", 15*time.Second, "length of the steady-rate run for store writes")
	fs.IntVar(&cfg.rate, "rate", 10_000, "values per second of the steady-rate run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.rounds < 1 || cfg.pgTime <= 0 || cfg.rate < 1 || cfg.storeTime < 3*time.Second {
		return errors.New("want -rounds >= 1, -pg-time > 0, -rate >= 1, -store-time >= 3s")
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

	rep := report{Command: command, Date: time.Now().UTC(), Machine: machine()}
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
	hotM, err := hotPathCollected(ctx, cfg.rounds)
	if err != nil {
		return err
	}
	logf("%s", hotM.line())
	svc, err := throughService(ctx, cfg.rounds)
	if err != nil {
		return err
	}
	logf("%s", svc.line())
	rep.Rows = append(rep.Rows, hot, hotPar, hotM, svc)

	pg, err := openPG(ctx, cfg.pg)
	if err != nil {
		return err
	}
	defer pg.close()
	rep.Machine.PostgreSQL = pg.version
	for _, f := range []func(context.Context, *pgPair, time.Duration) (row, error){nextval, nextvalCancellable, insert, insertDefault, insertPlain, select1, control} {
		r, err := f(ctx, pg, cfg.pgTime)
		if err != nil {
			return err
		}
		logf("%s", r.line())
		rep.Rows = append(rep.Rows, r)
	}

	pgxs, err := pgxRows(ctx, cfg.pg, cfg.pgTime, logf)
	if err != nil {
		return err
	}
	rep.Rows = append(rep.Rows, pgxs...)

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
// every sample (a round or a block), the ratio taken per sample.
type row struct {
	Name, Subject, Baseline string
	Samples                 string    // what the samples were, e.g. "5 rounds"
	SubjectNs, BaselineNs   []float64 // per sample
	SubjectAllocs           float64
	Note                    string
	// ClockNs: the clock's own cost per timing, subtracted from both
	// sides' times, per sample (compare's rows only).
	ClockNs []float64
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
	return fmt.Sprintf("%s: %s %s vs %s %s: ratio %.3g (IQR %.3g–%.3g, %s)", r.Name,
		r.Subject, fmtNs(median(r.SubjectNs)), r.Baseline, fmtNs(median(r.BaselineNs)),
		median(rs), quantile(rs, 0.25), quantile(rs, 0.75), r.Samples)
}

func median(xs []float64) float64 { return quantile(xs, 0.5) }

// quantile is the q-quantile of xs, interpolated linearly between the
// closest ranks.
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// hotPath compares seqcache's Handle.Next over an in-memory store with a bare
// atomic add, the floor of any shared counter, alternating which runs first.
// optFns configure the cache.
func hotPath(ctx context.Context, rounds int, parallel bool, optFns ...func(*seqcache.Options)) (row, error) {
	store := memstore.New()
	spec := sequence.DefaultSpec()
	if err := store.Create(ctx, "hot", spec, spec.Initial()); err != nil {
		return row{}, err
	}
	c := seqcache.New(store, optFns...)
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
	r := row{Name: "cache hot path", Subject: "seqcache Handle.Next", Baseline: "atomic.AddInt64",
		Samples: fmt.Sprintf("%d rounds", rounds)}
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

// pgPair is one PostgreSQL session reached three ways: through seqshim
// (memory store), natively through pgx, and natively again through a second
// database/sql handle (the control). All three drive the very same pgx
// connection, one operation at a time: two sessions would each have their
// own server process, and on a small machine where those run decides a
// session's speed by a percent or two, the size of what is measured.
type pgPair struct {
	shim, native, control *sql.DB
	session               *sessionConnector
	seq                   string
	tables                []string
	version               string
}

func openPG(ctx context.Context, pgURL string) (*pgPair, error) {
	p := &pgPair{seq: fmt.Sprintf("bench_seq_%d", rand.Uint32())}
	cfg, err := pgx.ParseConfig(pgURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", testenv.EnvPG, err)
	}
	p.session = &sessionConnector{Connector: stdlib.GetConnector(*cfg)}
	c, err := seqdriver.NewConnector(p.session, func(o *seqdriver.Options) { o.StoreURL = "memory:" + p.seq })
	if err != nil {
		return nil, err
	}
	p.shim, p.native, p.control = sql.OpenDB(c), sql.OpenDB(p.session), sql.OpenDB(p.session)
	for _, db := range []*sql.DB{p.shim, p.native, p.control} {
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
	}
	// The same sequence in the store (through seqshim, which gives the
	// database its fenced twin) and, under another name, in PostgreSQL.
	for _, db := range []*sql.DB{p.shim, p.native} {
		name := p.seq
		if db == p.native {
			name = p.nativeSeq()
		}
		if _, err := db.ExecContext(ctx, "CREATE SEQUENCE "+name); err != nil {
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

// nativeSeq is the name of the database's own sequence, beside the store's
// p.seq (whose name the database gives its fenced twin).
func (p *pgPair) nativeSeq() string { return p.seq + "_native" }

func (p *pgPair) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, t := range p.tables {
		p.native.ExecContext(ctx, "DROP TABLE IF EXISTS "+t)
	}
	p.native.ExecContext(ctx, "DROP SEQUENCE IF EXISTS "+p.seq+", "+p.nativeSeq())
	p.shim.Close()
	p.native.Close()
	p.control.Close()
	p.session.Close()
}

// sessionConnector opens one connection and hands that same connection to
// every caller, so that several database/sql handles share one database
// session, with the inner connection's own optional interfaces. It is only
// correct when they use it one operation at a time, as the benchmark does.
// The first handle closed closes the connection (pgx's Close is idempotent).
type sessionConnector struct {
	driver.Connector
	mu   sync.Mutex
	conn driver.Conn
}

func (s *sessionConnector) Connect(ctx context.Context) (driver.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		c, err := s.Connector.Connect(ctx)
		if err != nil {
			return nil, err
		}
		s.conn = c
	}
	return s.conn, nil
}

func (s *sessionConnector) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil
	}
	return s.conn.Close()
}

// blockPairs is the number of seqshim/native pairs in one sample of a
// PostgreSQL comparison.
const blockPairs = 1000

// compare runs the two operations alternately, one of each per pair (which
// goes first alternates too), each timed on its own, so that load drifting on
// a shared machine hits both alike. It takes a sample every blockPairs pairs
// for the time budget (at least 5): on this kind of machine one stall of a
// few milliseconds moves a second-long mean by percents, and the median over
// many short blocks is what such stalls do not move.
//
// A timing also holds the clock's own cost: the end of the read that
// starts it and the start of the read that ends it. That is tens of
// nanoseconds, nothing beside a round trip but a share of an operation
// answered in process, so every pair also times two reads back to back,
// just before its first operation, and each block's mean of those is
// subtracted from both sides' (r.ClockNs keeps it, for the note).
func compare(ctx context.Context, r row, budget time.Duration, shimOp, nativeOp func() error) (row, error) {
	pair := func(i int, shim, native, clock *time.Duration) error {
		first, second := shimOp, nativeOp
		t1, t2 := shim, native
		if i%2 == 1 {
			first, second, t1, t2 = nativeOp, shimOp, native, shim
		}
		c := time.Now()
		t0 := time.Now()
		*clock += t0.Sub(c)
		if err := first(); err != nil {
			return err
		}
		t := time.Now()
		*t1 += t.Sub(t0)
		if err := second(); err != nil {
			return err
		}
		*t2 += time.Since(t)
		return nil
	}
	var discard time.Duration
	for i := range blockPairs / 10 { // warm up: prepared statements, first blocks
		if err := pair(i, &discard, &discard, &discard); err != nil {
			return row{}, fmt.Errorf("%s: %w", r.Name, err)
		}
	}
	start := time.Now()
	for len(r.SubjectNs) < 5 || time.Since(start) < budget {
		if err := ctx.Err(); err != nil {
			return row{}, err
		}
		var shim, native, clock time.Duration
		for i := range blockPairs {
			if err := pair(i, &shim, &native, &clock); err != nil {
				return row{}, fmt.Errorf("%s: %w", r.Name, err)
			}
		}
		c := float64(clock.Nanoseconds()) / blockPairs
		r.SubjectNs = append(r.SubjectNs, float64(shim.Nanoseconds())/blockPairs-c)
		r.BaselineNs = append(r.BaselineNs, float64(native.Nanoseconds())/blockPairs-c)
		r.ClockNs = append(r.ClockNs, c)
	}
	r.Samples = fmt.Sprintf("%d blocks of %s pairs", len(r.SubjectNs), thousands(blockPairs))
	var failed error
	r.SubjectAllocs = testing.AllocsPerRun(200, func() {
		if err := shimOp(); err != nil && failed == nil {
			failed = err
		}
	})
	return r, failed
}

// The measured operations run under context.Background(), as benchmarks
// usually do; ctx only stops the run between blocks. With a context that can
// be cancelled, database/sql starts a goroutine for every Rows, on both
// sides: nextvalCancellable shows what that does to the in-process answer.

func nextval(ctx context.Context, p *pgPair, budget time.Duration) (row, error) {
	return nextvalCtx(ctx, p, budget, context.Background(), "SELECT nextval('s')", "seqshim answers in process, no round trip")
}

func nextvalCancellable(ctx context.Context, p *pgPair, budget time.Duration) (row, error) {
	opCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	return nextvalCtx(ctx, p, budget, opCtx, "SELECT nextval('s'), cancellable context",
		"as above, under a context with a Done channel: database/sql then starts a goroutine per query, on both sides")
}

func nextvalCtx(ctx context.Context, p *pgPair, budget time.Duration, opCtx context.Context, name, note string) (row, error) {
	q, nq := "SELECT nextval('"+p.seq+"')", "SELECT nextval('"+p.nativeSeq()+"')"
	var v int64
	return compare(ctx, row{Name: name, Subject: "seqshim", Baseline: "PostgreSQL via pgx", Note: note}, budget,
		func() error { return p.shim.QueryRowContext(opCtx, q).Scan(&v) },
		func() error { return p.native.QueryRowContext(opCtx, nq).Scan(&v) })
}

func insert(ctx context.Context, p *pgPair, budget time.Duration) (row, error) {
	var q [2]string
	for i := range q {
		t := fmt.Sprintf("%s_t%d", p.seq, i)
		if _, err := p.native.ExecContext(ctx, "CREATE TABLE "+t+" (id bigint PRIMARY KEY, v text)"); err != nil {
			return row{}, err
		}
		p.tables = append(p.tables, t)
		seq := p.seq
		if i == 1 {
			seq = p.nativeSeq()
		}
		q[i] = "INSERT INTO " + t + " (id, v) VALUES (nextval('" + seq + "'), $1)"
	}
	return compare(ctx, row{Name: "INSERT … VALUES (nextval('s'), $1)", Subject: "seqshim", Baseline: "PostgreSQL via pgx",
		Note: "seqshim binds the value as an extra parameter; two tables of the same shape"}, budget,
		func() error { _, err := p.shim.ExecContext(context.Background(), q[0], "x"); return err },
		func() error { _, err := p.native.ExecContext(context.Background(), q[1], "x"); return err })
}

// insertDefault compares an INSERT that leaves a bigserial id to its
// default: through seqshim the table was created through seqshim, so the
// id comes from the store, written into the INSERT as a bound value; natively
// the database draws it.
func insertDefault(ctx context.Context, p *pgPair, budget time.Duration) (row, error) {
	var q [2]string
	for i, db := range []*sql.DB{p.shim, p.native} {
		t := fmt.Sprintf("%s_d%d", p.seq, i)
		if _, err := db.ExecContext(ctx, "CREATE TABLE "+t+" (id bigserial PRIMARY KEY, v text)"); err != nil {
			return row{}, err
		}
		p.tables = append(p.tables, t)
		q[i] = "INSERT INTO " + t + " (v) VALUES ($1)"
	}
	return compare(ctx, row{Name: "INSERT … (v) VALUES ($1), id bigserial", Subject: "seqshim", Baseline: "PostgreSQL via pgx",
		Note: "the id column's default: from the store through seqshim, which writes it into the INSERT; from the database's sequence natively"}, budget,
		func() error { _, err := p.shim.ExecContext(context.Background(), q[0], "x"); return err },
		func() error { _, err := p.native.ExecContext(context.Background(), q[1], "x"); return err })
}

// insertPlain compares an INSERT into a table without store-backed
// defaults, in a process whose store has some (insertDefault's): the cost
// of looking.
func insertPlain(ctx context.Context, p *pgPair, budget time.Duration) (row, error) {
	var q [2]string
	for i := range q {
		t := fmt.Sprintf("%s_p%d", p.seq, i)
		if _, err := p.native.ExecContext(ctx, "CREATE TABLE "+t+" (id bigint, v text)"); err != nil {
			return row{}, err
		}
		p.tables = append(p.tables, t)
		q[i] = "INSERT INTO " + t + " (id, v) VALUES ($1, $2)"
	}
	return compare(ctx, row{Name: "INSERT … VALUES ($1, $2), no default", Subject: "seqshim", Baseline: "pgx",
		Note: "an ordinary table, with another table's column defaults in the store: seqshim checks the target and passes the text through"}, budget,
		func() error { _, err := p.shim.ExecContext(context.Background(), q[0], 1, "x"); return err },
		func() error { _, err := p.native.ExecContext(context.Background(), q[1], 1, "x"); return err })
}

func select1(ctx context.Context, p *pgPair, budget time.Duration) (row, error) {
	return compareSelect1(ctx, row{Name: "SELECT 1 (pass-through)", Subject: "seqshim", Baseline: "pgx",
		Note: "no sequence call: seqshim scans the text once and hands it to pgx"}, budget, p.shim, p.native)
}

// control compares pgx with itself, through two database/sql handles on the
// one session: its ratio is how far from 1 the method puts two identical
// paths, the precision of the rows above.
func control(ctx context.Context, p *pgPair, budget time.Duration) (row, error) {
	return compareSelect1(ctx, row{Name: "SELECT 1, control", Subject: "pgx", Baseline: "pgx",
		Note: "the same path on both sides: how far from 1 the method itself puts a ratio"}, budget, p.control, p.native)
}

// compareSelect1 compares SELECT 1 through subject with SELECT 1 through
// baseline.
func compareSelect1(ctx context.Context, r row, budget time.Duration, subject, baseline *sql.DB) (row, error) {
	var v int
	op := func(db *sql.DB) func() error {
		return func() error { return db.QueryRowContext(context.Background(), "SELECT 1").Scan(&v) }
	}
	return compare(ctx, r, budget, op(subject), op(baseline))
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
