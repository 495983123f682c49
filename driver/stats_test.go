package driver_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync/atomic"
	"testing"

	seqdriver "github.com/seqshim/seqshim/driver"
	"github.com/seqshim/seqshim/internal/testkit/fakedriver"
	"github.com/seqshim/seqshim/seqcache"
)

// statsFake is the fake inner driver of the sql.Open tests below.
const statsFake = "seqshim-stats-fake"

func init() { sql.Register(statsFake, (&fakedriver.Connector{}).Driver()) }

// storeURL is a memory: store of its own for each run of a test (memory:
// stores live as long as the process, and -count runs tests again).
func storeURL(t *testing.T) string {
	return fmt.Sprintf("memory:%s-%d", t.Name(), stores.Add(1))
}

var stores atomic.Int64

// draw runs SELECT nextval('s') n times.
func draw(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	for range n {
		var v int64
		if err := db.QueryRowContext(context.Background(), "SELECT nextval('s')").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
}

// checkServed fails unless stats are those of sequence s with served values.
func checkServed(t *testing.T, how string, stats []seqcache.Stats, served int64) {
	t.Helper()
	if len(stats) != 1 || stats[0].Name != "s" || stats[0].Served != served || stats[0].Reservations < 1 {
		t.Errorf("%s = %+v, want s with %d served", how, stats, served)
	}
}

func TestStats(t *testing.T) {
	store := storeURL(t)
	c, err := seqdriver.NewConnector(&fakedriver.Connector{}, func(o *seqdriver.Options) { o.StoreURL = store })
	if err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st != nil {
		t.Errorf("Connector.Stats before the first connection = %+v, want nil", st)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	draw(t, db, 5)
	stats, err := seqdriver.Stats(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	checkServed(t, "Stats", stats, 5)

	// Every pool connection checked out: neither Stats nor Connector.Stats
	// needs one (a cancelled context would fail db.Conn at once).
	db.SetMaxOpenConns(1)
	held, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	stats, err = seqdriver.Stats(cancelled, db)
	if err != nil {
		t.Fatalf("Stats with the pool exhausted: %v", err)
	}
	checkServed(t, "Stats with the pool exhausted", stats, 5)
	checkServed(t, "Connector.Stats with the pool exhausted", c.Stats(), 5)

	other, err := sql.Open("pgx", "postgres://127.0.0.1:1/x")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := seqdriver.Stats(ctx, other); err == nil {
		t.Fatal("Stats of a non-seqshim db: no error")
	}
}

// StatsFor reaches the cache of a sql.Open DB by its store URL, with the
// pool exhausted, until the last DB of that store is closed.
func TestStatsFor(t *testing.T) {
	store := storeURL(t)
	if _, ok := seqdriver.StatsFor(store); ok {
		t.Fatal("StatsFor before any connection: ok")
	}
	db, err := sql.Open(seqdriver.DriverName, "seqshim.driver="+statsFake+" seqshim.store="+store)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	draw(t, db, 3)
	db.SetMaxOpenConns(1)
	held, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stats, ok := seqdriver.StatsFor(store)
	if !ok {
		t.Fatal("StatsFor: not ok")
	}
	checkServed(t, "StatsFor", stats, 3)
	if _, ok := seqdriver.StatsFor("memory:other"); ok {
		t.Error("StatsFor of a store nobody opened: ok")
	}
	held.Close()
	db.Close()
	if _, ok := seqdriver.StatsFor(store); ok {
		t.Error("StatsFor after the DB was closed: ok")
	}
}

// A wrapped driver (as otelsql wraps it: its own Driver, connections with a
// Raw method): Stats borrows a connection and unwraps it; StatsFor and
// Connector.Stats need none.
func TestStatsWrapped(t *testing.T) {
	store := storeURL(t)
	c, err := seqdriver.NewConnector(&fakedriver.Connector{}, func(o *seqdriver.Options) { o.StoreURL = store })
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(wrapConnector{c})
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SEQUENCE s"); err != nil {
		t.Fatal(err)
	}
	draw(t, db, 4)
	stats, err := seqdriver.Stats(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	checkServed(t, "Stats through a wrapper", stats, 4)

	db.SetMaxOpenConns(1)
	held, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	stats, ok := seqdriver.StatsFor(store)
	if !ok {
		t.Fatal("StatsFor: not ok")
	}
	checkServed(t, "StatsFor with the pool exhausted", stats, 4)
	checkServed(t, "Connector.Stats with the pool exhausted", c.Stats(), 4)
}

// wrapConnector wraps connections as otelsql does.
type wrapConnector struct{ inner driver.Connector }

func (w wrapConnector) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := w.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return wrapConn{c.(fullConn)}, nil
}
func (w wrapConnector) Driver() driver.Driver { return wrapDriver{} }
func (w wrapConnector) Close() error          { return w.inner.(interface{ Close() error }).Close() }

type wrapDriver struct{}

func (wrapDriver) Open(string) (driver.Conn, error) { return nil, driver.ErrSkip }

type fullConn interface {
	driver.Conn
	driver.QueryerContext
	driver.ExecerContext
}

type wrapConn struct{ fullConn }

func (w wrapConn) Raw() driver.Conn { return w.fullConn }
