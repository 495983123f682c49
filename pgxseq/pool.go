package pgxseq

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/options"
	"github.com/seqshim/seqshim/seqcache"
)

// Pool is a *pgxpool.Pool whose statements get their sequences from the
// store, with the methods of pgxpool.Pool that pgx programs call. It
// satisfies sqlc's DBTX. Safe for concurrent use.
type Pool struct {
	pool     *pgxpool.Pool
	engines  *options.Engines
	opts     Options
	sessions sync.Map // *pgx.Conn → *session
	closed   sync.Once
}

func newPool(ctx context.Context, config *pgxpool.Config, o Options, optFns []func(*Options)) (*Pool, error) {
	if config == nil {
		return nil, errNilConfig
	}
	o, err := resolve(o, optFns)
	if err != nil {
		return nil, err
	}
	p := &Pool{engines: options.NewEngines(o), opts: o}
	config = config.Copy()
	engine.CountReports(&config.ConnConfig.Config)
	afterConnect, beforeClose := config.AfterConnect, config.BeforeClose
	config.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		if afterConnect != nil {
			if err := afterConnect(ctx, c); err != nil {
				return err
			}
		}
		_, err := p.attach(ctx, c)
		return err
	}
	config.BeforeClose = func(c *pgx.Conn) {
		p.sessions.Delete(c)
		if beforeClose != nil {
			beforeClose(c)
		}
	}
	if p.pool, err = pgxpool.NewWithConfig(ctx, config); err != nil {
		p.engines.Close()
		return nil, err
	}
	return p, nil
}

// attach makes the engine session of a new connection of the pool.
func (p *Pool) attach(ctx context.Context, c *pgx.Conn) (*session, error) {
	eng, err := p.engines.Get(ctx, c.Config().Database)
	if err != nil {
		return nil, err
	}
	x, err := newSession(ctx, eng, c)
	if err != nil {
		return nil, err
	}
	p.sessions.Store(c, x)
	return x, nil
}

// session returns the engine session of c, a connection of the pool.
func (p *Pool) session(ctx context.Context, c *pgx.Conn) (*session, error) {
	if x, ok := p.sessions.Load(c); ok {
		return x.(*session), nil
	}
	return p.attach(ctx, c) // a connection AfterConnect did not see: not expected
}

// acquire returns a connection of the pool and its session.
func (p *Pool) acquire(ctx context.Context) (*pgxpool.Conn, *session, error) {
	c, err := p.pool.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	x, err := p.session(ctx, c.Conn())
	if err != nil {
		c.Release()
		return nil, nil, err
	}
	return c, x, nil
}

// Exec runs sql on a connection of the pool, as pgxpool.Pool.Exec.
func (p *Pool) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	c, x, err := p.acquire(ctx)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer c.Release()
	return x.exec(ctx, sql, args)
}

// Query runs sql on a connection of the pool, as pgxpool.Pool.Query: the
// connection goes back to the pool when the rows are closed.
func (p *Pool) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	c, x, err := p.acquire(ctx)
	if err != nil {
		return errRows(err), err
	}
	rows, err := x.query(ctx, sql, args, false)
	if err != nil {
		c.Release()
		return rows, err
	}
	return x.poolRows(rows, c), nil
}

// QueryRow runs sql on a connection of the pool, as pgxpool.Pool.QueryRow:
// the connection goes back to the pool once the row is scanned.
func (p *Pool) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	c, x, err := p.acquire(ctx)
	if err != nil {
		return &row{err: err}
	}
	return x.queryRow(ctx, c, sql, args)
}

// SendBatch sends b on a connection of the pool, as pgxpool.Pool.SendBatch:
// the connection goes back to the pool when the results are closed.
func (p *Pool) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	c, x, err := p.acquire(ctx)
	if err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	br := x.sendBatch(ctx, b)
	if br.tx != nil && !br.tx.closed {
		// The batch began a transaction: the connection is the
		// transaction's until it ends.
		br.tx.release = c.Release
	} else {
		br.release = c.Release
	}
	return br
}

// CopyFrom copies rows into a table on a connection of the pool, as
// pgxpool.Pool.CopyFrom, filling the columns it leaves out whose defaults
// the store serves: see [Conn.CopyFrom].
func (p *Pool) CopyFrom(ctx context.Context, tableName pgx.Identifier, columnNames []string, rowSrc pgx.CopyFromSource) (int64, error) {
	c, x, err := p.acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Release()
	return x.copyFrom(ctx, tableName, columnNames, rowSrc)
}

// Begin begins a transaction on a connection of the pool, as
// pgxpool.Pool.Begin: the connection goes back to the pool when the
// transaction ends.
func (p *Pool) Begin(ctx context.Context) (pgx.Tx, error) {
	return p.BeginTx(ctx, pgx.TxOptions{})
}

// BeginTx is [Pool.Begin] with options, as pgxpool.Pool.BeginTx.
func (p *Pool) BeginTx(ctx context.Context, txOptions pgx.TxOptions) (pgx.Tx, error) {
	c, x, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := x.begin(ctx, txOptions)
	if err != nil {
		c.Release()
		return nil, err
	}
	return &Tx{x: x, tx: tx, release: c.Release}, nil
}

// Acquire takes a connection of the pool for the program's own use, as
// pgxpool.Pool.Acquire; [PoolConn.Release] gives it back.
func (p *Pool) Acquire(ctx context.Context) (*PoolConn, error) {
	c, x, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &PoolConn{c: c, querier: querier{x}}, nil
}

// AcquireFunc acquires a connection, calls f with it and releases it, as
// pgxpool.Pool.AcquireFunc.
func (p *Pool) AcquireFunc(ctx context.Context, f func(*PoolConn) error) error {
	c, err := p.Acquire(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	return f(c)
}

// Ping acquires a connection and pings the server, as pgxpool.Pool.Ping.
func (p *Pool) Ping(ctx context.Context) error { return p.pool.Ping(ctx) }

// Stat returns the pool's statistics (pgxpool's).
func (p *Pool) Stat() *pgxpool.Stat { return p.pool.Stat() }

// Config returns a copy of the pool's configuration, with seqshim's
// hooks in AfterConnect and BeforeClose.
func (p *Pool) Config() *pgxpool.Config { return p.pool.Config() }

// Options returns the seqshim options in effect.
func (p *Pool) Options() Options { return p.opts }

// Cache returns the cache the pool's connections draw values from, nil
// before its first connection.
func (p *Pool) Cache() *seqcache.Cache {
	if eng := p.engines.First(); eng != nil {
		return eng.Cache()
	}
	return nil
}

// Reset closes every connection of the pool, as pgxpool.Pool.Reset.
func (p *Pool) Reset() { p.pool.Reset() }

// Pool returns the wrapped pool. Statements run on it directly bypass
// seqshim: the database's own sequences answer them.
func (p *Pool) Pool() *pgxpool.Pool { return p.pool }

// Close closes the pool's connections, then releases its share of the
// store and cache: the last user of a store in the process closes the
// cache (stopping refills and handing unused values back). Safe to call
// more than once.
func (p *Pool) Close() {
	p.closed.Do(func() {
		p.pool.Close()
		if err := p.engines.Close(); err != nil {
			if l := p.opts.Logger; l != nil {
				l.Warn("seqshim: closing the store", "err", err)
			}
		}
	})
}

// PoolConn is a connection acquired from a [Pool], as *pgxpool.Conn.
type PoolConn struct {
	querier
	c *pgxpool.Conn
}

// Release gives the connection back to the pool, as pgxpool.Conn.Release.
func (c *PoolConn) Release() { c.c.Release() }

// Conn returns the underlying *pgx.Conn. Statements run on it directly
// bypass seqshim.
func (c *PoolConn) Conn() *pgx.Conn { return c.c.Conn() }

// Ping pings the server.
func (c *PoolConn) Ping(ctx context.Context) error { return c.c.Ping(ctx) }

// Prepare prepares a statement on the connection: see [Conn.Prepare].
func (c *PoolConn) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return c.x.prepare(ctx, name, sql)
}

// Deallocate releases a prepared statement of the connection.
func (c *PoolConn) Deallocate(ctx context.Context, name string) error {
	return c.x.deallocate(ctx, name)
}

// Begin begins a transaction on the connection.
func (c *PoolConn) Begin(ctx context.Context) (pgx.Tx, error) {
	return c.BeginTx(ctx, pgx.TxOptions{})
}

// BeginTx begins a transaction with options on the connection.
func (c *PoolConn) BeginTx(ctx context.Context, txOptions pgx.TxOptions) (pgx.Tx, error) {
	tx, err := c.x.begin(ctx, txOptions)
	if err != nil {
		return nil, err
	}
	return &Tx{x: c.x, tx: tx}, nil
}

// poolRows are a query's rows on a connection of the pool, which they
// give back when closed.
type poolRows struct {
	pgx.Rows
	c *pgxpool.Conn
}

// poolRows wraps rows, from a slab of the session's as localRows does.
func (x *session) poolRows(rows pgx.Rows, c *pgxpool.Conn) *poolRows {
	if len(x.poolSlab) == 0 {
		x.poolSlab = make([]poolRows, rowsSlab)
	}
	r := &x.poolSlab[len(x.poolSlab)-1]
	x.poolSlab = x.poolSlab[:len(x.poolSlab)-1]
	*r = poolRows{Rows: rows, c: c}
	return r
}

func (r *poolRows) Close() {
	if r.c == nil {
		return
	}
	r.Rows.Close()
	c := r.c
	r.c = nil
	c.Release()
}

func (r *poolRows) Next() bool {
	if r.c == nil {
		return false
	}
	if !r.Rows.Next() {
		r.Close()
		return false
	}
	return true
}

func (r *poolRows) Scan(dest ...any) error {
	err := r.Rows.Scan(dest...)
	if err != nil {
		r.Close()
	}
	return err
}

func (r *poolRows) Values() ([]any, error) {
	v, err := r.Rows.Values()
	if err != nil {
		r.Close()
	}
	return v, err
}
