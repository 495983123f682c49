// Command pgx is the headline case: one PostgreSQL, opened once through pgx
// and once through seqshim, running the same SQL.
//
//	DATABASE_URL=postgres://app@db/app go run ./examples/pgx
//	go run ./examples/pgx -dsn 'postgres://app@db/app' -n 20000
//
// The migration is the driver name: sql.Open("pgx", dsn) becomes
// sql.Open("seqshim", dsn) with a store in the DSN (here memory:, this
// process only). The program creates orders_seq on both sides — through pgx
// in the database, through seqshim in the store — times SELECT
// nextval('orders_seq') both ways, and inserts rows whose ids come from
// nextval through seqshim. It leaves nothing behind: the database side uses a
// temporary sequence and a temporary table, which end with their session,
// and seqshim's sequence (in the store, with its fenced twin in the
// database, which keeps the catalog as PostgreSQL's) is dropped at the end.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"  // "pgx", the driver before the migration
	"github.com/seqshim/seqshim/driver" // "seqshim", the driver after
)

func main() {
	dsn := flag.String("dsn", os.Getenv("DATABASE_URL"), "PostgreSQL URL or key=value DSN (default $DATABASE_URL)")
	calls := flag.Int("n", 10_000, "SELECT nextval calls to time on each side")
	flag.Parse()
	if *dsn == "" || *calls < 1 {
		fmt.Fprintln(os.Stderr, "usage: pgx [-dsn postgres://...] [-n calls]  (or set DATABASE_URL)")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, *dsn, *calls); err != nil {
		fmt.Fprintln(os.Stderr, "pgx example:", err)
		os.Exit(1)
	}
}

// warmup calls on each side before timing: connections, plans, first block.
const warmup = 100

func run(ctx context.Context, w io.Writer, dsn string, calls int) error {
	// Before: the database answers every nextval.
	native, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer native.Close()
	// After: the same DSN, the driver name changed and a store added.
	shim, err := sql.Open("seqshim", withStore(dsn, "memory:pgx-example"))
	if err != nil {
		return err
	}
	defer shim.Close()

	// One session on each side, so that the temporary objects stay visible.
	nc, err := native.Conn(ctx)
	if err != nil {
		return err
	}
	defer nc.Close()
	sc, err := shim.Conn(ctx)
	if err != nil {
		return err
	}
	defer sc.Close()

	var version string
	if err := nc.QueryRowContext(ctx, "SHOW server_version").Scan(&version); err != nil {
		return err
	}
	fmt.Fprintf(w, "seqshim and pgx on the same PostgreSQL %s\n\n", version)

	for _, s := range []struct {
		conn      *sql.Conn
		via, stmt string
		where     string
	}{
		{nc, "pgx", "CREATE TEMPORARY SEQUENCE orders_seq START 1000", "the database (a temporary sequence: this session only)"},
		{sc, "seqshim", "CREATE SEQUENCE orders_seq START 1000", "the store (memory:), and its fenced twin in the database (never drawn from)"},
		{sc, "seqshim", "CREATE TEMPORARY TABLE orders (id bigint PRIMARY KEY, item text NOT NULL)", "the database"},
	} {
		if _, err := s.conn.ExecContext(ctx, s.stmt); err != nil {
			return fmt.Errorf("%s via %s: %w", s.stmt, s.via, err)
		}
		fmt.Fprintf(w, "%-7s  %s\n         -> %s\n", s.via, s.stmt, s.where)
	}
	defer sc.ExecContext(context.WithoutCancel(ctx), "DROP SEQUENCE orders_seq") // the store's, and its twin

	// The same statement on both sides, one call each in turn, so that both
	// see the same machine load.
	const nextval = "SELECT nextval('orders_seq')"
	sides := []*side{{name: "pgx", conn: nc}, {name: "seqshim", conn: sc}}
	for i := range warmup + calls {
		for _, s := range sides {
			if err := s.call(ctx, nextval, i >= warmup); err != nil {
				return fmt.Errorf("%s via %s: %w", nextval, s.name, err)
			}
		}
	}
	fmt.Fprintf(w, "\n%s, %d calls each way after %d to warm up, one at a time:\n", nextval, calls, warmup)
	for _, s := range sides {
		fmt.Fprintf(w, "  %-7s  values %d to %d  per call: p50 %v  p99 %v\n", s.name, s.first, s.last, s.quantile(0.5), s.quantile(0.99))
	}
	ratio := float64(sides[0].quantile(0.5)) / float64(max(sides[1].quantile(0.5), 1))
	fmt.Fprintf(w, "  seqshim's p50 is %.1fx shorter than pgx's: it answers without a round trip to the database\n", ratio)

	// INSERT with nextval: seqshim draws the value and binds it into the
	// statement, which the database then runs.
	const insert = "INSERT INTO orders (id, item) VALUES (nextval('orders_seq'), $1) RETURNING id"
	var ids []string
	for _, item := range []string{"widget", "gadget", "gizmo"} {
		var id int64
		if err := sc.QueryRowContext(ctx, insert, item).Scan(&id); err != nil {
			return fmt.Errorf("%s via seqshim: %w", insert, err)
		}
		ids = append(ids, fmt.Sprint(id))
	}
	fmt.Fprintf(w, "\nseqshim  %s\n         -> ids %s\n", insert, strings.Join(ids, ", "))
	var n, lo, hi int64
	if err := sc.QueryRowContext(ctx, "SELECT count(*), min(id), max(id) FROM orders").Scan(&n, &lo, &hi); err != nil {
		return err
	}
	fmt.Fprintf(w, "seqshim  SELECT count(*), min(id), max(id) FROM orders\n         -> %d rows, ids %d to %d\n", n, lo, hi)

	stats, err := driver.Stats(ctx, shim)
	if err != nil {
		return err
	}
	for _, st := range stats {
		fmt.Fprintf(w, "\nstore: sequence %s, %d values served in this process, %d store round trips\n", st.Name, st.Served, st.Reservations)
	}
	return nil
}

// side is one driver's session and what its nextval calls returned.
type side struct {
	name        string
	conn        *sql.Conn
	first, last int64
	lat         []time.Duration // timed calls, sorted by quantile
}

func (s *side) call(ctx context.Context, query string, timed bool) error {
	t0 := time.Now()
	var v int64
	if err := s.conn.QueryRowContext(ctx, query).Scan(&v); err != nil {
		return err
	}
	if !timed {
		return nil
	}
	s.lat = append(s.lat, time.Since(t0))
	if len(s.lat) == 1 {
		s.first = v
	} else if v <= s.last {
		return errors.New("values went backwards")
	}
	s.last = v
	return nil
}

func (s *side) quantile(q float64) time.Duration {
	slices.Sort(s.lat)
	return s.lat[int(q*float64(len(s.lat)-1))]
}

// withStore adds seqshim.store to a PostgreSQL DSN, URL or key=value form.
func withStore(dsn, store string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			q := u.Query()
			q.Set("seqshim.store", store)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return dsn + " seqshim.store=" + store
}
