package pgxseq_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/testkit/fakepg"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/pgxseq"
)

// fakeConfig is a connection configuration to an in-process fake server
// (package fakepg), which answers at once: what is left is the client's
// own cost.
func fakeConfig(b testing.TB) *pgx.ConnConfig {
	cfg, err := fakepg.Config()
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// BenchmarkPassThrough is a statement without sequence work through the
// pgx front end and through pgx itself, against the fake server: the
// difference is the front end's in-process cost, which allocates nothing.
func BenchmarkPassThrough(b *testing.B) {
	ctx := context.Background()
	native, err := pgx.ConnectConfig(ctx, fakeConfig(b))
	if err != nil {
		b.Fatal(err)
	}
	defer native.Close(ctx)
	shim, err := pgxseq.ConnectConfig(ctx, fakeConfig(b), func(o *pgxseq.Options) { o.StoreURL = "memory:bench" })
	if err != nil {
		b.Fatal(err)
	}
	defer shim.Close(ctx)
	for _, tc := range []struct {
		name string
		exec func(context.Context, string, ...any) error
	}{
		{"Exec/pgx", func(ctx context.Context, sql string, args ...any) error {
			_, err := native.Exec(ctx, sql, args...)
			return err
		}},
		{"Exec/pgxseq", func(ctx context.Context, sql string, args ...any) error {
			_, err := shim.Exec(ctx, sql, args...)
			return err
		}},
		{"Query/pgx", func(ctx context.Context, sql string, args ...any) error {
			rows, err := native.Query(ctx, sql, args...)
			if err == nil {
				rows.Close()
				err = rows.Err()
			}
			return err
		}},
		{"Query/pgxseq", func(ctx context.Context, sql string, args ...any) error {
			rows, err := shim.Query(ctx, sql, args...)
			if err == nil {
				rows.Close()
				err = rows.Err()
			}
			return err
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := tc.exec(ctx, "SELECT 1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNextval is SELECT nextval answered in process by the pgx front
// end, QueryRow(…).Scan as a program calls it: no round trip, and no
// allocation (the destinations are made once: Scan(&v) in the loop would
// allocate its variadic slice, through pgx's Row interface, on the
// caller's side).
func BenchmarkNextval(b *testing.B) {
	ctx := context.Background()
	shim, err := pgxseq.Connect(ctx, testenv.PG(b), func(o *pgxseq.Options) { o.StoreURL = "memory:" + b.Name() })
	if err != nil {
		b.Fatal(err)
	}
	defer shim.Close(ctx)
	seq := fmt.Sprintf("bench_nextval_%d", time.Now().UnixNano())
	if _, err := shim.Exec(ctx, "CREATE SEQUENCE "+seq); err != nil {
		b.Fatal(err)
	}
	defer shim.Exec(ctx, "DROP SEQUENCE "+seq)
	q := "SELECT nextval('" + seq + "')"
	var v int64
	dest := []any{&v}
	b.ReportAllocs()
	for b.Loop() {
		if err := shim.QueryRow(ctx, q).Scan(dest...); err != nil {
			b.Fatal(err)
		}
	}
	if v < 1 {
		b.Fatalf("nextval returned %d", v)
	}
}
