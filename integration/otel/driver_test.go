package otel_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"sync/atomic"
	"testing"

	"github.com/XSAM/otelsql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/testenv"
	"github.com/seqshim/seqshim/seqcache"
)

// pgURL is the test PostgreSQL's URL; without one the test skips (fails
// under SEQSHIM_TEST_REQUIRE=1).
func pgURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(testenv.EnvPG)
	if u == "" {
		if testenv.Required() {
			t.Fatalf("%s is unset (and %s=1)", testenv.EnvPG, testenv.EnvRequire)
		}
		t.Skipf("%s is unset; run under scripts/testenv.sh", testenv.EnvPG)
	}
	return u
}

// memoryStore is a memory: store of its own for each run of a test
// (memory: stores live as long as the process, and -count runs tests again).
func memoryStore(t *testing.T) string {
	return fmt.Sprintf("memory:%s-%d", t.Name(), stores.Add(1))
}

var stores atomic.Int64

// withStore adds seqshim.store to a PostgreSQL URL.
func withStore(t *testing.T, pg, store string) string {
	t.Helper()
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("seqshim.store", store)
	u.RawQuery = q.Encode()
	return u.String()
}

// nextvals runs SELECT nextval('s') n times.
func nextvals(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	ctx := context.Background()
	for range n {
		var v int64
		if err := db.QueryRowContext(ctx, "SELECT nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
}

// exhaust checks out every connection of a pool of two and returns them.
func exhaust(t *testing.T, db *sql.DB) {
	t.Helper()
	db.SetMaxOpenConns(2)
	for range 2 {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
}

func checkServed(t *testing.T, how string, stats []seqcache.Stats, served int64) {
	t.Helper()
	if len(stats) != 1 || stats[0].Name != "s" || stats[0].Served != served {
		t.Errorf("%s = %+v, want s with %d served", how, stats, served)
	}
}

// otelsql.Open wraps the driver seqshim registered: sql.DB.Driver is
// otelsql's and a connection's Raw method hands out otelsql's wrapper.
// driver.StatsFor reaches the cache by store URL with every connection
// checked out; driver.Stats needs a free connection, which it unwraps.
func TestStatsOtelsqlOpen(t *testing.T) {
	store := memoryStore(t)
	db, err := otelsql.Open(driver.DriverName, withStore(t, pgURL(t), store))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	dropTwin(t, "s")
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	nextvals(t, db, 5)

	stats, err := driver.Stats(ctx, db)
	if err != nil {
		t.Fatalf("Stats through otelsql: %v", err)
	}
	checkServed(t, "Stats through otelsql", stats, 5)

	exhaust(t, db)
	stats, ok := driver.StatsFor(store)
	if !ok {
		t.Fatal("StatsFor: not ok")
	}
	checkServed(t, "StatsFor, every connection checked out", stats, 5)

	// The documented limit: wrapped, Stats borrows a connection.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := driver.Stats(cancelled, db); !errors.Is(err, context.Canceled) {
		t.Errorf("Stats through otelsql with the pool exhausted: %v, want it to wait for a connection", err)
	}
}

// otelsql.OpenDB of a seqshim Connector: the Connector reports its stats
// with every connection checked out, and its MeterProvider gets the
// cache's metrics.
func TestStatsOtelsqlOpenDB(t *testing.T) {
	cfg, err := pgx.ParseConfig(pgURL(t))
	if err != nil {
		t.Fatal(err)
	}
	mp, reader := newProvider(t)
	c, err := driver.NewConnector(stdlib.GetConnector(*cfg), func(o *driver.Options) {
		o.StoreURL = memoryStore(t)
		o.MeterProvider = mp
		o.Logger = slog.New(slog.DiscardHandler)
	})
	if err != nil {
		t.Fatal(err)
	}
	db := otelsql.OpenDB(c)
	defer db.Close()
	dropTwin(t, "s")
	if _, err := db.ExecContext(context.Background(), "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	nextvals(t, db, 7)
	exhaust(t, db)
	checkServed(t, "Connector.Stats, every connection checked out", c.Stats(), 7)

	r := collect(t, reader)
	if n, _ := r.int("seqshim.values.served", "s", ""); n != 7 {
		t.Errorf("served through the driver's MeterProvider = %d, want 7", n)
	}
}

// dropTwin drops, at the end of the test, the fenced twin that CREATE
// SEQUENCE name through seqshim leaves in the test database: the test's
// memory: store ends with the test, and the next one creates the name
// again.
func dropTwin(t *testing.T, name string) {
	t.Cleanup(func() {
		db, err := sql.Open("pgx", pgURL(t))
		if err != nil {
			t.Error(err)
			return
		}
		defer db.Close()
		if _, err := db.Exec("DROP SEQUENCE IF EXISTS public." + name); err != nil {
			t.Error(err)
		}
	})
}
