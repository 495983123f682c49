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

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/storeurl"
	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
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
var ErrNoStore = errors.New("seqshim: no sequence store configured: set seqshim.store in the DSN, " +
	"SEQSHIM_STORE in the environment, or Options.Store (e.g. seqshim.store=dynamodb%3A%2F%2Fseqs%3Fregion%3Deu-west-1)")

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
	switch cn := dc.(type) {
	case *conn:
		cn.ownConnector = true
	case *shadowConn:
		cn.ownConnector = true
	}
	return dc, nil
}

// OpenConnector parses dsn: seqshim.* parameters configure seqshim
// (SEQSHIM_* environment variables fill the options the DSN leaves unset)
// and the rest goes to the inner driver. It neither connects nor opens the
// store.
func (d *Driver) OpenConnector(dsn string) (driver.Connector, error) {
	innerDSN, kv, err := splitDSN(dsn)
	if err != nil {
		return nil, err
	}
	var o Options
	if err := o.applyDSN(kv); err != nil {
		return nil, err
	}
	if err := o.applyEnv(); err != nil {
		return nil, err
	}
	if err := o.resolve(); err != nil {
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
// shares them.
type Connector struct {
	drv     *Driver
	inner   driver.Connector
	opts    Options
	dialect rewrite.Dialect
	planner *rewrite.Planner

	mu     sync.Mutex     // protects seq, eng and closed
	seq    *sharedSeq     // nil until the first Connect
	eng    *engine.Engine // on seq; nil until the first Connect
	closed bool
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
	if err := o.applyEnv(); err != nil {
		return nil, err
	}
	if d := inner.Driver(); o.Driver == "" && o.Dialect == "" && d != nil {
		// Guess the dialect from the inner driver's type.
		o.Dialect = dialectOf(reflect.TypeOf(d).String())
	}
	if err := o.resolve(); err != nil {
		return nil, err
	}
	return newConnector(inner, o), nil
}

func newConnector(inner driver.Connector, o Options) *Connector {
	c := &Connector{inner: inner, opts: o}
	c.drv = &Driver{connector: c}
	switch o.Dialect {
	case DialectMySQL:
		c.dialect = rewrite.MySQL
	case DialectSQLite:
		c.dialect = rewrite.SQLite
	default:
		c.dialect = rewrite.Postgres
	}
	c.planner = rewrite.NewPlanner(c.dialect, o.PlanCache)
	return c
}

// Options returns the options in effect.
func (c *Connector) Options() Options { return c.opts }

// Driver returns the seqshim [Driver], one that knows c (see [Stats]).
func (c *Connector) Driver() driver.Driver { return c.drv }

// Connect opens an inner connection and wraps it. The first call also opens
// the store (or finds the one this process already has open for the same
// URL); without a store it fails with [ErrNoStore].
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if c.opts.Mode == ModeShadow {
		sh, err := c.acquireShadow(ctx)
		if err != nil {
			return nil, err
		}
		ic, err := c.inner.Connect(ctx)
		if err != nil {
			return nil, err
		}
		return newShadowConn(c, sh, ic), nil
	}
	eng, err := c.acquire(ctx)
	if err != nil {
		return nil, err
	}
	ic, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	cn := newConn(c, eng, ic)
	if cn.tracksPath {
		// One query now, so that no sequence call pays for it.
		if err := cn.sess.LearnPath(ctx); err != nil {
			ic.Close()
			return nil, err
		}
	}
	return cn, nil
}

// Cache returns the cache this Connector's connections draw values from, or
// nil before the first connection.
func (c *Connector) Cache() *seqcache.Cache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seq == nil {
		return nil
	}
	return c.seq.cache
}

// acquire returns the Connector's engine, opening or sharing its store and
// cache on the first call.
func (c *Connector) acquire(ctx context.Context) (*engine.Engine, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("seqshim: connector closed")
	}
	if c.eng != nil {
		return c.eng, nil
	}
	seq, err := acquireShared(ctx, c.opts)
	if err != nil {
		return nil, err
	}
	if err := warmUp(ctx, seq.cache, c.opts); err != nil {
		// Not remembered: the next connection tries again.
		return nil, errors.Join(err, seq.release())
	}
	c.seq = seq
	c.eng = engine.New(engine.Options{Store: seq.store, Cache: seq.cache, Planner: c.planner,
		DDLToDatabase: c.opts.DDL == DDLBoth, StoreName: storeurl.Redact(c.opts.StoreURL)})
	return c.eng, nil
}

// acquireShadow is acquire for shadow mode: the Connector's shadow, opening
// or sharing its store on the first call.
func (c *Connector) acquireShadow(ctx context.Context) (*Shadow, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("seqshim: connector closed")
	}
	if c.seq != nil {
		return c.seq.shadow, nil
	}
	seq, err := acquireShadow(ctx, c.opts)
	if err != nil {
		return nil, err
	}
	c.seq = seq
	return seq.shadow, nil
}

// Close releases the Connector's share of its store and cache; the last
// Connector of a store closes the cache (stopping refills and releasing
// unused values) and a store it opened by URL. It also closes the inner
// connector if that is an io.Closer, as sql.DB.Close would have without
// seqshim. Safe to call more than once.
func (c *Connector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var err error
	if c.seq != nil {
		err = c.seq.release()
		c.seq, c.eng = nil, nil
	}
	if ic, ok := c.inner.(io.Closer); ok {
		err = errors.Join(err, ic.Close())
	}
	return err
}

// sharedSeq is a store and its cache, shared by every Connector of the process
// with the same store URL (or the same Options.Store), so values stay
// increasing across connections and sql.DBs of one process.
type sharedSeq struct {
	key   any
	store sequence.Store
	cache *seqcache.Cache
	refs  int  // guarded by registry.mu
	owned bool // opened from a URL: closed with the last reference

	shadow *Shadow // shadow mode's drawer, whose cache is cache; nil in serve mode
}

var registry struct {
	mu sync.Mutex
	m  map[any]*sharedSeq
}

// acquireShared returns the serve-mode sharedSeq of o's store: its
// configuration checked, its cache made from o.
func acquireShared(ctx context.Context, o Options) (*sharedSeq, error) {
	return acquire(ctx, o, func(k any) any { return k }, func(s *sharedSeq) error {
		if err := checkStore(ctx, s.store, o); err != nil {
			return err
		}
		s.cache = seqcache.New(s.store, func(co *seqcache.Options) {
			co.Buffer = o.Buffer
			co.MinThreshold = o.MinThreshold
			co.MinBlock = o.MinBlock
			co.MaxBlock = o.MaxBlock
			co.MaxWait = o.MaxWait
			co.RefillTimeout = o.RefillTimeout
			co.Revalidate = o.Revalidate
			co.NoRecovery = o.Recovery == RecoveryOff
			co.MeterProvider = o.MeterProvider
			co.Logger = o.Logger
			if o.StoreURL != "" {
				co.StoreName = storeurl.Redact(o.StoreURL)
			}
		})
		return nil
	})
}

// acquire returns the sharedSeq of o's store — its URL, or Options.Store
// when comparable — in the registry under keyOf of it, with one more
// reference; or a new one: the store opened from its URL, then build
// (which makes the cache), registered unless the store cannot be a key.
// Serve and shadow mode share it, under keys of their own.
func acquire(ctx context.Context, o Options, keyOf func(any) any, build func(*sharedSeq) error) (*sharedSeq, error) {
	var key any
	switch {
	case o.StoreURL != "":
		key = keyOf(o.StoreURL)
	case o.Store != nil:
		if reflect.TypeOf(o.Store).Comparable() {
			key = keyOf(o.Store)
		}
	default:
		return nil, ErrNoStore
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if key != nil {
		if s := registry.m[key]; s != nil {
			s.refs++
			return s, nil
		}
	}
	s := &sharedSeq{key: key, store: o.Store, refs: 1}
	if o.StoreURL != "" {
		st, err := openStore(ctx, o.StoreURL)
		if err != nil {
			return nil, fmt.Errorf("seqshim: open store %s: %w", storeurl.Redact(o.StoreURL), err)
		}
		s.store, s.owned = st, true
	}
	if err := build(s); err != nil {
		if c, ok := s.store.(io.Closer); ok && s.owned {
			c.Close()
		}
		return nil, err
	}
	if key != nil {
		if registry.m == nil {
			registry.m = make(map[any]*sharedSeq)
		}
		registry.m[key] = s
	}
	return s, nil
}

// maxCheck bounds the configuration check of a store at the first
// connection: a store that is slow or unreachable must not hold the
// application's start-up for long (statements without sequence calls do not
// need it), while one that answers "no such table" or "no credentials"
// does so at once.
const maxCheck = 2 * time.Second

// checkStore fails the first connection of a store whose configuration is
// wrong (a missing table, a file that cannot be created, no credentials),
// with the store's message naming the store and the fix. A store that is
// merely unreachable passes: sequence calls report it, with the store and
// the operation, when they need it. The check is not remembered as a
// failure: once the operator fixed the store (seqctl init), the next
// connection succeeds.
func checkStore(ctx context.Context, st sequence.Store, o Options) error {
	ctx, cancel := context.WithTimeout(ctx, min(maxCheck, max(o.RefillTimeout, time.Second)))
	defer cancel()
	if err := sequence.Check(ctx, st); errors.Is(err, sequence.ErrMisconfigured) {
		if o.StoreURL != "" {
			return fmt.Errorf("seqshim: store %s: %w", storeurl.Redact(o.StoreURL), err)
		}
		return fmt.Errorf("seqshim: store: %w", err)
	}
	return nil
}

func (s *sharedSeq) release() error {
	registry.mu.Lock()
	s.refs--
	last := s.refs == 0
	if last && s.key != nil && registry.m[s.key] == s {
		delete(registry.m, s.key)
	}
	registry.mu.Unlock()
	if !last {
		return nil
	}
	if s.shadow != nil {
		s.shadow.stop()
	}
	err := s.cache.Close()
	if c, ok := s.store.(io.Closer); ok && s.owned {
		err = errors.Join(err, c.Close())
	}
	return err
}
