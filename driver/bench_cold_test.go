package driver

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx", for the round trips between operations

	"github.com/seqshim/seqshim/internal/testkit/testenv"
)

// BenchmarkCold measures what seqshim's own work costs as it runs in a
// real program: after a round trip to PostgreSQL, with the processor's
// caches full of the network stack, the server and the inner driver. Each
// operation goes through database/sql to the fake inner driver (no network:
// only seqshim's and database/sql's work is timed), directly ("inner") and
// through seqshim, and one untimed SELECT 1 on a real PostgreSQL session
// runs before each. The metric is the median time of one operation: the
// difference between the seqshim and inner rows is seqshim's share of a
// statement's latency. It needs SEQSHIM_TEST_PG.
func BenchmarkCold(b *testing.B) {
	pgURL := os.Getenv(testenv.EnvPG)
	if pgURL == "" {
		b.Skip("SEQSHIM_TEST_PG is unset")
	}
	pg, err := sql.Open("pgx", pgURL)
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Close()
	pg.SetMaxOpenConns(1)
	ctx := context.Background()
	var one int
	roundTrip := func() {
		if err := pg.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip()

	fs := newFakeSetup(b)
	fs.fake.Rec.Record = false
	inner, shim := sql.OpenDB(fs.fake), sql.OpenDB(fs.c)
	defer inner.Close()
	defer shim.Close()
	for _, db := range []*sql.DB{inner, shim} {
		db.SetMaxOpenConns(1)
	}
	var v int64
	for _, tt := range []struct {
		name string
		op   func() error
	}{
		{"select/inner", func() error { return inner.QueryRowContext(ctx, "SELECT a, b FROM t WHERE id = $1", 1).Scan(&v) }},
		{"select/seqshim", func() error { return shim.QueryRowContext(ctx, "SELECT a, b FROM t WHERE id = $1", 1).Scan(&v) }},
		{"nextval/seqshim", func() error { return shim.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v) }},
		{"insert-nextval/inner", func() error {
			_, err := inner.ExecContext(ctx, "INSERT INTO t (id, v) VALUES (nextval('s'), $1)", "x")
			return err
		}},
		{"insert-nextval/seqshim", func() error {
			_, err := shim.ExecContext(ctx, "INSERT INTO t (id, v) VALUES (nextval('s'), $1)", "x")
			return err
		}},
		{"insert-plain/inner", func() error {
			_, err := inner.ExecContext(ctx, "INSERT INTO accounts (name, email) VALUES ($1, $2)", "ann", "a@b")
			return err
		}},
		{"insert-plain/seqshim", func() error {
			_, err := shim.ExecContext(ctx, "INSERT INTO accounts (name, email) VALUES ($1, $2)", "ann", "a@b")
			return err
		}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for range 100 { // warm: plans, prepared statements, first block
				roundTrip()
				if err := tt.op(); err != nil {
					b.Fatal(err)
				}
			}
			times := make([]time.Duration, 0, 1<<16)
			for b.Loop() {
				roundTrip()
				t0 := time.Now()
				if err := tt.op(); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(t0))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns/op")
			b.ReportMetric(float64(times[len(times)/4].Nanoseconds()), "p25-ns/op")
		})
	}
}
