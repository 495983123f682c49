package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/options"
	"github.com/seqshim/seqshim/seqcache"
)

// DriverName is the name the package registers with database/sql.
const DriverName = "seqshim"

func init() {
	sql.Register(DriverName, defaultDriver)
}

var defaultDriver = &Driver{}

// ErrNoStore is returned by the first connection attempt of a Connector that
// has no store: neither seqshim.store in the DSN, nor SEQSHIM_STORE, nor
// Options.Store / Options.StoreURL. There is deliberately no default store.
var ErrNoStore = engine.ErrNoStore

// Driver is the seqshim database/sql driver, registered as "seqshim".
type Driver struct {
	// connector is set on the Driver that a Connector returns (and
	// sql.DB.Driver with it), so that [Stats] finds the Connector without a
	// connection.
	connector *Connector
}

// Compile-time checks of the interfaces promised.
var (
	_ driver.Driver        = (*Driver)(nil)
	_ driver.DriverContext = (*Driver)(nil)
	_ driver.Connector     = (*Connector)(nil)
	_ io.Closer            = (*Connector)(nil)
)

// Open opens one connection. database/sql uses [Driver.OpenConnector]
// instead; Open exists for callers of the plain driver.Driver interface, and
// the connection it returns releases its store when closed.
func (d *Driver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // as pgx: eventual timeout
	defer cancel()
	dc, err := c.Connect(ctx)
	if err != nil {
		c.(*Connector).Close()
		return nil, err
	}
	dc.(*conn).ownConnector = true
	return dc, nil
}

// OpenConnector parses dsn: seqshim.* parameters configure seqshim
// (SEQSHIM_* environment variables fill the options the DSN leaves unset)
// and the rest goes to the inner driver. It neither connects nor opens the
// store.
func (d *Driver) OpenConnector(dsn string) (driver.Connector, error) {
	innerDSN, kv, err := options.SplitDSN(dsn)
	if err != nil {
		return nil, err
	}
	var o Options
	if err := options.ApplyDSN(&o, kv); err != nil {
		return nil, err
	}
	if err := options.ApplyEnv(&o); err != nil {
		return nil, err
	}
	if err := options.Resolve(&o); err != nil {
		return nil, err
	}
	inner, err := innerConnector(o.Driver, innerDSN)
	if err != nil {
		return nil, err
	}
	return newConnector(inner, o), nil
}

// innerConnector opens a connector of the registered driver name.
func innerConnector(name, dsn string) (driver.Connector, error) {
	if name == DriverName {
		return nil, errors.New("seqshim: the inner driver cannot be seqshim itself")
	}
	var drv driver.Driver
	if name == "pgx" || name == "pgx/v5" {
		drv = stdlib.GetDefaultDriver()
	} else {
		// sql.Open neither connects nor parses the DSN: it is the only
		// public way to look a registered driver up by name.
		db, err := sql.Open(name, "")
		if err != nil {
			return nil, fmt.Errorf("seqshim: inner driver %q: %w", name, err)
		}
		drv = db.Driver()
		db.Close()
	}
	if dc, ok := drv.(driver.DriverContext); ok {
		return dc.OpenConnector(dsn)
	}
	return dsnConnector{drv, dsn}, nil
}

// dsnConnector is database/sql's own fallback for drivers without
// DriverContext.
type dsnConnector struct {
	drv driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

// Connector opens seqshim connections around an inner driver.Connector. It
// implements io.Closer: sql.DB.Close closes it, which stops the cache's
// refills and hands unused values back to the store once no other Connector
// (nor any other front end of the process) shares them.
type Connector struct {
	drv   *Driver
	inner driver.Connector
	opts  Options

	engines *options.Engines // one, or one per database (DatabasePlaceholder)
	closeMu sync.Mutex       // protects closed
	closed  bool
}

// NewConnector wraps inner (for example pgx's stdlib.GetConnector) so its
// connections get sequences from the store; use it with sql.OpenDB. The
// options are those optFns set; SEQSHIM_* environment variables fill only
// the options they leave unset (Options.Driver is ignored: inner is the
// driver).
func NewConnector(inner driver.Connector, optFns ...func(*Options)) (*Connector, error) {
	if inner == nil {
		return nil, errors.New("seqshim: NewConnector: nil inner connector")
	}
	var o Options
	for _, fn := range optFns {
		fn(&o)
	}
	if err := options.ApplyEnv(&o); err != nil {
		return nil, err
	}
	if d := inner.Driver(); o.Driver == "" && o.Dialect == "" && d != nil {
		// Guess the dialect from the inner driver's type.
		o.Dialect = options.DialectOf(reflect.TypeOf(d).String())
	}
	if err := options.Resolve(&o); err != nil {
		return nil, err
	}
	return newConnector(inner, o), nil
}

func newConnector(inner driver.Connector, o Options) *Connector {
	c := &Connector{inner: inner, opts: o, engines: options.NewEngines(o)}
	c.drv = &Driver{connector: c}
	return c
}

// Options returns the options in effect.
func (c *Connector) Options() Options { return c.opts }

// Driver returns the seqshim [Driver], one that knows c (see [Stats]).
func (c *Connector) Driver() driver.Driver { return c.drv }

// Connect opens an inner connection and wraps it. The first call also opens
// the store (or finds the one this process already has open for the same
// URL, whichever front end opened it); without a store it fails with
// [ErrNoStore]. With [DatabasePlaceholder] in the store URL, the store is
// the one of the connection's database.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if !options.PerDatabase(&c.opts) {
		eng, err := c.engines.Get(ctx, "")
		if err != nil {
			return nil, err
		}
		return c.wrap(ctx, eng, nil)
	}
	ic, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	name, err := databaseName(ctx, ic)
	if err == nil {
		var eng *engine.Engine
		if eng, err = c.engines.Get(ctx, name); err == nil {
			return c.wrap(ctx, eng, ic)
		}
	}
	ic.Close()
	return nil, err
}

// wrap makes a seqshim connection of eng around ic, an inner connection
// (nil: one opened here).
func (c *Connector) wrap(ctx context.Context, eng *engine.Engine, ic driver.Conn) (driver.Conn, error) {
	if ic == nil {
		var err error
		if ic, err = c.inner.Connect(ctx); err != nil {
			return nil, err
		}
	}
	cn, err := newConn(ctx, c, eng, ic)
	if err != nil {
		ic.Close()
		return nil, err
	}
	return cn, nil
}

// DatabasePlaceholder in a store URL (seqshim.store, SEQSHIM_STORE,
// Options.StoreURL) stands for the name of the database a connection is on,
// percent-encoded: dynamodb://seqs?prefix={database}/ gives each database
// counters of its own, sqlite:/var/lib/seq/{database}.db a file of its own.
// It is how databases that must not share an id space (a database per
// tenant) keep PostgreSQL's independence with one configuration; without
// it, the databases sharing a store share its counters.
const DatabasePlaceholder = options.DatabasePlaceholder

// databaseName is the name of the database inner is connected to: pgx's
// configuration, else current_database() through the session.
func databaseName(ctx context.Context, inner driver.Conn) (string, error) {
	if pc, ok := inner.(interface{ Conn() *pgx.Conn }); ok {
		return pc.Conn().Config().Database, nil
	}
	if db := innerDB(inner); db != nil {
		rows, err := db.Query(ctx, "SELECT pg_catalog.current_database()")
		if err != nil {
			return "", err
		}
		if len(rows) == 1 && len(rows[0]) == 1 && rows[0][0] != "" {
			return rows[0][0], nil
		}
	}
	return "", fmt.Errorf("seqshim: the store URL has %s, but the database of inner connection %T cannot be told", DatabasePlaceholder, inner)
}

// Cache returns the cache this Connector's connections draw values from, or
// nil before the first connection.
func (c *Connector) Cache() *seqcache.Cache {
	if eng := c.engines.First(); eng != nil {
		return eng.Cache()
	}
	return nil
}

// Close releases the Connector's share of its store and cache; the last
// user of a store in the process closes the cache (stopping refills and
// releasing unused values) and a store it opened by URL. It also closes the
// inner connector if that is an io.Closer, as sql.DB.Close would have
// without seqshim. Safe to call more than once.
func (c *Connector) Close() error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	err := c.engines.Close()
	if ic, ok := c.inner.(io.Closer); ok {
		err = errors.Join(err, ic.Close())
	}
	return err
}
