package driver_test

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/fakedriver"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/memstore"
)

// The PostgreSQL benchmarks come in pairs, seqshim and native, on the same
// server; run a pair in one command, interleaved, e.g.
//
//	for i in 1 2 3 4 5 6; do go test -run '^$' -bench 'Nextval' -count 1 ./driver; done
//
// They skip when SEQSHIM_TEST_PG is unset (even with SEQSHIM_TEST_REQUIRE=1:
// a figure is not a test).

func benchPG(b *testing.B) {
	if os.Getenv(testenv.EnvPG) == "" {
		b.Skip("SEQSHIM_TEST_PG is unset")
	}
}

// benchDBs returns a database handle through seqshim (memory store) or
// natively through pgx, with sequence seq in it, and one connection so that
// every iteration uses the same session.
func benchDB(b *testing.B, shim bool, seq string) *sql.DB {
	b.Helper()
	benchPG(b)
	var db *sql.DB
	if shim {
		db = seqshimDB(b, memstore.New())
	} else {
		db = nativeDB(b)
	}
	db.SetMaxOpenConns(1)
	if seq != "" {
		mustExec(b, db, "CREATE SEQUENCE "+seq)
		if !shim {
			b.Cleanup(func() { db.Exec("DROP SEQUENCE IF EXISTS " + seq) })
		}
	}
	return db
}

func benchNextval(b *testing.B, shim bool) {
	seq := uniq(b, "bn")
	db := benchDB(b, shim, seq)
	q := "SELECT nextval('" + seq + "')"
	ctx := context.Background()
	var v int64
	b.ReportAllocs()
	for b.Loop() {
		if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNextvalSeqshim: SELECT nextval('s') answered in process.
func BenchmarkNextvalSeqshim(b *testing.B) { benchNextval(b, true) }

// BenchmarkNextvalNative: SELECT nextval('s') through pgx to PostgreSQL.
func BenchmarkNextvalNative(b *testing.B) { benchNextval(b, false) }

func benchInsert(b *testing.B, shim bool) {
	seq, tbl := uniq(b, "bi"), uniq(b, "bt")
	db := benchDB(b, shim, seq)
	native := nativeDB(b)
	mustExec(b, native, "CREATE TABLE "+tbl+" (id bigint PRIMARY KEY, v text)")
	b.Cleanup(func() { native.Exec("DROP TABLE " + tbl) })
	q := "INSERT INTO " + tbl + " (id, v) VALUES (nextval('" + seq + "'), $1)"
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := db.ExecContext(ctx, q, "x"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsertSeqshim: INSERT … VALUES (nextval('s'), $1), the value
// bound as an extra parameter.
func BenchmarkInsertSeqshim(b *testing.B) { benchInsert(b, true) }

// BenchmarkInsertNative: the same INSERT, nextval evaluated by PostgreSQL.
func BenchmarkInsertNative(b *testing.B) { benchInsert(b, false) }

func benchSelect1(b *testing.B, shim bool) {
	db := benchDB(b, shim, "")
	ctx := context.Background()
	var v int
	b.ReportAllocs()
	for b.Loop() {
		if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSelect1Seqshim: a pass-through query through seqshim.
func BenchmarkSelect1Seqshim(b *testing.B) { benchSelect1(b, true) }

// BenchmarkSelect1Pgx: the same query through pgx directly.
func BenchmarkSelect1Pgx(b *testing.B) { benchSelect1(b, false) }

// BenchmarkPassThroughFake measures what seqshim adds to a pass-through
// query where no network hides it: database/sql over the fake inner driver,
// directly and through seqshim. Compare the two sub-benchmarks.
func BenchmarkPassThroughFake(b *testing.B) {
	for _, shim := range []bool{false, true} {
		name := "inner"
		if shim {
			name = "seqshim"
		}
		b.Run(name, func(b *testing.B) {
			fake := &fakedriver.Connector{}
			var db *sql.DB
			if shim {
				c, err := seqdriver.NewConnector(fake, func(o *seqdriver.Options) { o.Store = memstore.New() })
				if err != nil {
					b.Fatal(err)
				}
				db = sql.OpenDB(c)
			} else {
				db = sql.OpenDB(fake)
			}
			defer db.Close()
			ctx := context.Background()
			q := "SELECT id, name, created_at FROM accounts WHERE id = $1 AND status = 'active'"
			var v int64
			b.ReportAllocs()
			for b.Loop() {
				if err := db.QueryRowContext(ctx, q, 42).Scan(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchInterleaved alternates one operation through seqshim and one natively
// in every iteration, timing each, so that load drifting on a shared machine
// hits both alike; it reports both times and their ratio (seqshim/native).
// The measured time includes both operations. One run's mean moves by
// percents when a stall of a few milliseconds lands on one side: for the
// figures, go run ./bench takes the median over many short blocks.
func benchInterleaved(b *testing.B, shimOp, nativeOp func() error) {
	var shim, native time.Duration
	timed := func(op func() error, total *time.Duration) {
		t0 := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		*total += time.Since(t0)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 { // alternate which goes first
			timed(shimOp, &shim)
			timed(nativeOp, &native)
		} else {
			timed(nativeOp, &native)
			timed(shimOp, &shim)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(shim.Nanoseconds())/n, "seqshim-ns/op")
	b.ReportMetric(float64(native.Nanoseconds())/n, "native-ns/op")
	b.ReportMetric(float64(shim)/float64(native), "ratio")
}

// BenchmarkSelect1Interleaved: SELECT 1 through seqshim and through pgx,
// alternating.
func BenchmarkSelect1Interleaved(b *testing.B) {
	shimDB, nativeDB := benchDB(b, true, ""), benchDB(b, false, "")
	ctx := context.Background()
	var v int
	benchInterleaved(b,
		func() error { return shimDB.QueryRowContext(ctx, "SELECT 1").Scan(&v) },
		func() error { return nativeDB.QueryRowContext(ctx, "SELECT 1").Scan(&v) })
}

// BenchmarkInsertInterleaved: INSERT … VALUES (nextval('s'), $1) through
// seqshim and natively, alternating, into two tables of the same shape.
func BenchmarkInsertInterleaved(b *testing.B) {
	seq := uniq(b, "bi")
	shimDB, nativeDB := benchDB(b, true, seq), benchDB(b, false, seq)
	var q [2]string
	for i := range q {
		tbl := uniq(b, "bt")
		mustExec(b, nativeDB, "CREATE TABLE "+tbl+" (id bigint PRIMARY KEY, v text)")
		b.Cleanup(func() { nativeDB.Exec("DROP TABLE " + tbl) })
		q[i] = "INSERT INTO " + tbl + " (id, v) VALUES (nextval('" + seq + "'), $1)"
	}
	ctx := context.Background()
	benchInterleaved(b,
		func() error { _, err := shimDB.ExecContext(ctx, q[0], "x"); return err },
		func() error { _, err := nativeDB.ExecContext(ctx, q[1], "x"); return err })
}
