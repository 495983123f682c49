// Command quickstart shows seqshim with nothing installed: an application
// database and a sequence store, both SQLite files in a temporary directory.
//
//	go run ./examples/quickstart
//
// It creates a sequence with CREATE SEQUENCE, inserts orders whose ids come
// from nextval('orders_seq'), and prints how many values were handed out per
// store round trip, how long nextval takes, and a uniqueness check done in SQL.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/seqshim/seqshim/driver"
	_ "github.com/seqshim/seqshim/sqlstore/sqlite" // the sqlite: store, which the driver does not link
	_ "modernc.org/sqlite"                         // the application's own database driver, "sqlite"
)

func main() {
	orders := flag.Int("orders", 20_000, "orders to insert")
	calls := flag.Int("nextval", 100_000, "SELECT nextval calls to time")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *orders, *calls); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer, orders, calls int) error {
	dir, err := os.MkdirTemp("", "seqshim-quickstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	// A plain SQLite program opens "sqlite" with "file:app.db". With seqshim
	// the driver name changes, and two parameters say which driver runs the
	// SQL and where the sequence counters live.
	dsn := "file:" + filepath.Join(dir, "app.db") +
		"?seqshim.driver=sqlite&seqshim.store=sqlite:" + filepath.Join(dir, "sequences.db")
	db, err := sql.Open("seqshim", dsn)
	if err != nil {
		return err
	}
	defer db.Close()

	for _, stmt := range []string{
		"CREATE SEQUENCE orders_seq START 1000", // goes to the store
		"CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}

	// INSERT with nextval: the value is drawn in process and bound in.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	insert, err := tx.PrepareContext(ctx, "INSERT INTO orders (id, item) VALUES (nextval('orders_seq'), ?)")
	if err != nil {
		return err
	}
	start := time.Now()
	for i := range orders {
		if _, err := insert.ExecContext(ctx, fmt.Sprintf("item %d", i)); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	insertTime := time.Since(start)

	// SELECT nextval: answered in process, no database round trip.
	lat := make([]time.Duration, calls)
	for i := range lat {
		t0 := time.Now()
		var id int64
		if err := db.QueryRowContext(ctx, "SELECT nextval('orders_seq')").Scan(&id); err != nil {
			return err
		}
		lat[i] = time.Since(t0)
	}
	slices.Sort(lat)

	var rows, distinct, lo, hi int64
	err = db.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM orders").Scan(&rows, &distinct, &lo, &hi)
	if err != nil {
		return err
	}
	stats, err := driver.Stats(ctx, db)
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "seqshim quick start: SQLite application database, SQLite sequence store, no server\n\n")
	fmt.Fprintf(w, "inserted %d orders with ids from nextval('orders_seq') in %v\n", orders, insertTime.Round(time.Millisecond))
	for _, st := range stats {
		fmt.Fprintf(w, "sequence %s: %d values handed out, %d store round trips, %.0f values per round trip\n",
			st.Name, st.Served, st.Reservations, float64(st.Served)/float64(max(st.Reservations, 1)))
	}
	fmt.Fprintf(w, "SELECT nextval('orders_seq') through database/sql, %d calls: p50 %v, p99 %v\n",
		calls, lat[len(lat)/2], lat[len(lat)*99/100])
	verdict := "all unique"
	if distinct != rows {
		verdict = "DUPLICATES"
	}
	fmt.Fprintf(w, "uniqueness (SELECT count(*), count(DISTINCT id) FROM orders): %d rows, %d distinct ids from %d to %d: %s\n",
		rows, distinct, lo, hi, verdict)
	if distinct != rows {
		return fmt.Errorf("%d duplicate ids", rows-distinct)
	}
	return nil
}
