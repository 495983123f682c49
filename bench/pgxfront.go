package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/fakepg"
	"github.com/seqshim/seqshim/pgxseq"
)

// The pgx-native front end (package pgxseq) against pgx itself. The
// PostgreSQL rows run both sides on one and the same database session, as
// the database/sql rows do: pgxseq's Conn, and natively the *pgx.Conn it
// wraps.

// pgxPair is a pgxseq connection (memory store) and its own pgx
// connection.
type pgxPair struct {
	shim   *pgxseq.Conn
	native *pgx.Conn
	prefix string
	drop   []string
}

func openPgxPair(ctx context.Context, pgURL, prefix string) (*pgxPair, error) {
	shim, err := pgxseq.Connect(ctx, pgURL, func(o *pgxseq.Options) { o.StoreURL = "memory:" + prefix })
	if err != nil {
		return nil, err
	}
	return &pgxPair{shim: shim, native: shim.Conn(), prefix: prefix}, nil
}

func (p *pgxPair) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, rel := range slices.Backward(p.drop) {
		p.shim.Exec(ctx, "DROP "+rel)
	}
	p.shim.Close(ctx)
}

// pgxRows are the pgx front end's rows of the benchmark.
func pgxRows(ctx context.Context, pgURL string, budget time.Duration, logf func(string, ...any)) ([]row, error) {
	p, err := openPgxPair(ctx, pgURL, fmt.Sprintf("bench_pgx_%d", time.Now().UnixNano()%1e9))
	if err != nil {
		return nil, err
	}
	defer p.close()
	var rows []row
	for _, f := range []func(context.Context, *pgxPair, time.Duration) (row, error){pgxNextval, pgxInsertDefault, pgxBatch} {
		r, err := f(ctx, p, budget)
		if err != nil {
			return nil, err
		}
		logf("%s", r.line())
		rows = append(rows, r)
	}
	r, err := pgxPassThrough(ctx, 5)
	if err != nil {
		return nil, err
	}
	logf("%s", r.line())
	rows = append(rows, r)
	conc, err := concurrentInserts(ctx, pgURL, p.prefix, budget)
	if err != nil {
		return nil, err
	}
	for _, r := range conc {
		logf("%s", r.line())
	}
	return append(rows, conc...), nil
}

// bigserialTables makes a table (id bigserial PRIMARY KEY, v text)
// through pgxseq and another natively, named after suffix, and returns the
// INSERT leaving the id to its default into each.
func (p *pgxPair) bigserialTables(ctx context.Context, suffix string) (q [2]string, err error) {
	for i, exec := range []func(context.Context, string, ...any) (pgconn.CommandTag, error){p.shim.Exec, p.native.Exec} {
		t := fmt.Sprintf("%s_%s%d", p.prefix, suffix, i)
		if _, err := exec(ctx, "CREATE TABLE "+t+" (id bigserial PRIMARY KEY, v text)"); err != nil {
			return q, err
		}
		p.drop = append(p.drop, "TABLE "+t)
		q[i] = "INSERT INTO " + t + " (v) VALUES ($1)"
	}
	return q, nil
}

// pgxNextval compares SELECT nextval through pgxseq, answered in process,
// with the database's own through pgx.
func pgxNextval(ctx context.Context, p *pgxPair, budget time.Duration) (row, error) {
	shimSeq, nativeSeq := p.prefix+"_s", p.prefix+"_n"
	if _, err := p.shim.Exec(ctx, "CREATE SEQUENCE "+shimSeq); err != nil {
		return row{}, err
	}
	p.drop = append(p.drop, "SEQUENCE "+shimSeq)
	if _, err := p.native.Exec(ctx, "CREATE SEQUENCE "+nativeSeq); err != nil {
		return row{}, err
	}
	p.drop = append(p.drop, "SEQUENCE "+nativeSeq)
	// The destinations are made once, on both sides: Scan(&v) would
	// allocate its variadic slice at each call, through pgx's Row
	// interface, which is the caller's allocation, not the front end's.
	var v int64
	dest := []any{&v}
	shimQ, nativeQ := "SELECT nextval('"+shimSeq+"')", "SELECT nextval('"+nativeSeq+"')"
	return compare(ctx, row{Name: "pgx: SELECT nextval('s')", Subject: "pgxseq", Baseline: "PostgreSQL via pgx",
		Note: "Conn.QueryRow(…).Scan on both sides, on the same session: pgxseq answers in process, no round trip"}, budget,
		func() error { return p.shim.QueryRow(context.Background(), shimQ).Scan(dest...) },
		func() error { return p.native.QueryRow(context.Background(), nativeQ).Scan(dest...) })
}

// pgxInsertDefault compares an INSERT leaving a bigserial id to its
// default: through pgxseq (the table made through it: the store's
// sequence, written into the INSERT) and natively.
func pgxInsertDefault(ctx context.Context, p *pgxPair, budget time.Duration) (row, error) {
	q, err := p.bigserialTables(ctx, "d")
	if err != nil {
		return row{}, err
	}
	return compare(ctx, row{Name: "pgx: INSERT … (v) VALUES ($1), id bigserial", Subject: "pgxseq", Baseline: "PostgreSQL via pgx",
		Note: "Conn.Exec on both sides, on the same session: the id from the store through pgxseq, written into the INSERT as a bound value and sent with a statement pgxseq prepared, as pgx sends its cached ones; from the database's sequence natively"}, budget,
		func() error { _, err := p.shim.Exec(context.Background(), q[0], "x"); return err },
		func() error { _, err := p.native.Exec(context.Background(), q[1], "x"); return err })
}

// batchSize is the number of INSERTs of the batch row.
const batchSize = 10

// pgxBatch compares a batch of INSERTs leaving a bigserial id to its
// default (sqlc's :batchexec): through pgxseq, every statement's value
// drawn and the batch sent in one round trip; natively, the database
// drawing each.
func pgxBatch(ctx context.Context, p *pgxPair, budget time.Duration) (row, error) {
	q, err := p.bigserialTables(ctx, "b")
	if err != nil {
		return row{}, err
	}
	batch := func(send func(context.Context, *pgx.Batch) pgx.BatchResults, sql string) func() error {
		return func() error {
			b := &pgx.Batch{}
			for range batchSize {
				b.Queue(sql, "x")
			}
			return send(context.Background(), b).Close()
		}
	}
	return compare(ctx, row{Name: fmt.Sprintf("pgx: a batch of %d INSERTs, id bigserial", batchSize), Subject: "pgxseq", Baseline: "PostgreSQL via pgx",
		Note: "SendBatch … Close on both sides, on the same session (sqlc's :batchexec): pgxseq draws every id, then sends the batch in one round trip, as pgx does"}, budget,
		batch(p.shim.SendBatch, q[0]), batch(p.native.SendBatch, q[1]))
}

// pgxPassThrough measures what pgxseq adds in process to a statement
// without sequence work: Exec("SELECT 1") through pgxseq and through pgx,
// each on a connection to an in-process fake server (internal/testkit/
// fakepg) that answers at once, with testing.Benchmark, alternating which
// runs first. The difference of the two is the front end's cost.
func pgxPassThrough(ctx context.Context, rounds int) (row, error) {
	nc, err := fakepg.Config()
	if err != nil {
		return row{}, err
	}
	native, err := pgx.ConnectConfig(ctx, nc)
	if err != nil {
		return row{}, err
	}
	defer native.Close(ctx)
	sc, err := fakepg.Config()
	if err != nil {
		return row{}, err
	}
	shim, err := pgxseq.ConnectConfig(ctx, sc, func(o *pgxseq.Options) { o.StoreURL = "memory:bench-passthrough" })
	if err != nil {
		return row{}, err
	}
	defer shim.Close(ctx)
	var failed atomic.Value
	bench := func(exec func() error) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := exec(); err != nil {
					failed.Store(err)
				}
			}
		}
	}
	shimOp := bench(func() error { _, err := shim.Exec(context.Background(), "SELECT 1"); return err })
	nativeOp := bench(func() error { _, err := native.Exec(context.Background(), "SELECT 1"); return err })
	r := row{Name: "pgx: pass-through Exec, in process", Subject: "pgxseq", Baseline: "pgx",
		Samples: fmt.Sprintf("%d rounds", rounds)}
	var diffs []float64
	var extraAllocs int64
	for i := range rounds {
		var s, n testing.BenchmarkResult
		if i%2 == 0 {
			s, n = testing.Benchmark(shimOp), testing.Benchmark(nativeOp)
		} else {
			n, s = testing.Benchmark(nativeOp), testing.Benchmark(shimOp)
		}
		r.SubjectNs = append(r.SubjectNs, nsPerOp(s))
		r.BaselineNs = append(r.BaselineNs, nsPerOp(n))
		diffs = append(diffs, nsPerOp(s)-nsPerOp(n))
		r.SubjectAllocs = max(r.SubjectAllocs, float64(s.AllocsPerOp()))
		extraAllocs = max(extraAllocs, s.AllocsPerOp()-n.AllocsPerOp())
	}
	if err, _ := failed.Load().(error); err != nil {
		return row{}, fmt.Errorf("pass-through: %w", err)
	}
	r.Note = fmt.Sprintf("Exec(\"SELECT 1\") against an in-process fake server that answers at once (internal/testkit/fakepg): pgxseq's own cost is the difference, %+.0f ns (median of the rounds' differences), %+d allocations/op (pgx's own: %.0f)",
		median(diffs), extraAllocs, r.SubjectAllocs-float64(extraAllocs))
	return r, nil
}

// concurrentSessions is the number of sessions of the concurrent INSERT
// rows.
const concurrentSessions = 32

// concurrentInserts measures 32 sessions inserting concurrently into one
// bigserial table, leaving the id to its default: natively through
// pgxpool, through pgxseq's Pool, and through the database/sql driver.
// Each side runs for a share of budget, in turns (native, pgxseq,
// database/sql, then again in reverse), and its throughput is the median
// of its turns'.
func concurrentInserts(ctx context.Context, pgURL, prefix string, budget time.Duration) ([]row, error) {
	cfg, err := pgxpool.ParseConfig(pgURL)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns, cfg.MinConns = concurrentSessions, concurrentSessions
	native, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer native.Close()
	shim, err := pgxseq.NewWithConfig(ctx, cfg, func(o *pgxseq.Options) { o.StoreURL = "memory:" + prefix + "_conc" })
	if err != nil {
		return nil, err
	}
	defer shim.Close()
	conn, err := seqdriver.NewConnector(stdlib.GetConnector(*cfg.ConnConfig), func(o *seqdriver.Options) { o.StoreURL = "memory:" + prefix + "_conc" })
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	db.SetMaxOpenConns(concurrentSessions)
	db.SetMaxIdleConns(concurrentSessions)

	nt, st, dt := prefix+"_cn", prefix+"_cs", prefix+"_cd"
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		native.Exec(ctx, "DROP TABLE IF EXISTS "+nt)
		shim.Exec(ctx, "DROP TABLE IF EXISTS "+st)
		db.ExecContext(ctx, "DROP TABLE IF EXISTS "+dt)
	}()
	if _, err := native.Exec(ctx, "CREATE TABLE "+nt+" (id bigserial PRIMARY KEY, v text)"); err != nil {
		return nil, err
	}
	if _, err := shim.Exec(ctx, "CREATE TABLE "+st+" (id bigserial PRIMARY KEY, v text)"); err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+dt+" (id bigserial PRIMARY KEY, v text)"); err != nil {
		return nil, err
	}
	sides := []struct {
		name string
		op   func(ctx context.Context) error
	}{
		{"pgxpool", func(ctx context.Context) error {
			_, err := native.Exec(ctx, "INSERT INTO "+nt+" (v) VALUES ($1)", "x")
			return err
		}},
		{"pgxseq", func(ctx context.Context) error {
			_, err := shim.Exec(ctx, "INSERT INTO "+st+" (v) VALUES ($1)", "x")
			return err
		}},
		{"database/sql seqshim", func(ctx context.Context) error {
			_, err := db.ExecContext(ctx, "INSERT INTO "+dt+" (v) VALUES ($1)", "x")
			return err
		}},
	}
	const turns = 4
	turn := max(budget/(turns*time.Duration(len(sides))), time.Second)
	perInsert := make([][]float64, len(sides)) // ns of wall time per row, per turn
	for t := range turns {
		for k := range sides {
			i := k
			if t%2 == 1 {
				i = len(sides) - 1 - k
			}
			n, took, err := runConcurrent(ctx, turn, sides[i].op)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", sides[i].name, err)
			}
			perInsert[i] = append(perInsert[i], float64(took.Nanoseconds())/float64(n))
		}
	}
	// Every id once: the store's blocks never overlap.
	for _, t := range []string{st, dt} {
		var rows, distinct int64
		if err := native.QueryRow(ctx, "SELECT count(*), count(DISTINCT id) FROM "+t).Scan(&rows, &distinct); err != nil {
			return nil, err
		}
		if rows != distinct {
			return nil, fmt.Errorf("%s: %d rows but %d distinct ids", t, rows, distinct)
		}
	}
	note := fmt.Sprintf("%d sessions, each a loop of INSERT … (v) VALUES ($1) into one bigserial table, for %s per turn, %d turns per side in alternating order; the ratio is time per row, so below 1 is more rows per second. Client and server share 2 cores here: the database's nextval (a lock and a WAL record per row) against seqshim's in-process draw, on a machine the 32 server processes saturate",
		concurrentSessions, turn, turns)
	var out []row
	for i := 1; i < len(sides); i++ {
		r := row{Name: fmt.Sprintf("%d sessions inserting, id bigserial: %s", concurrentSessions, sides[i].name),
			Subject: sides[i].name + " " + rate(perInsert[i]), Baseline: "pgxpool " + rate(perInsert[0]),
			Samples: fmt.Sprintf("%d turns", turns), SubjectNs: perInsert[i], BaselineNs: perInsert[0], SubjectAllocs: -1, Note: note}
		out = append(out, r)
	}
	return out, nil
}

// rate is the throughput of a side, from its ns per row.
func rate(nsPerRow []float64) string {
	return fmt.Sprintf("(%s rows/s)", thousands(int64(1e9/median(nsPerRow))))
}

// runConcurrent runs op in concurrentSessions goroutines for d and returns
// how many succeeded and how long they took.
func runConcurrent(ctx context.Context, d time.Duration, op func(context.Context) error) (int64, time.Duration, error) {
	var n atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, concurrentSessions)
	start := time.Now()
	deadline := start.Add(d)
	for range concurrentSessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				if err := op(ctx); err != nil {
					errs <- err
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	if err := errors.Join(<-errs, ctx.Err()); err != nil {
		return 0, 0, err
	}
	if n.Load() == 0 {
		return 0, 0, errors.New("no row inserted")
	}
	return n.Load(), took, nil
}
