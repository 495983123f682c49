package pgxseq

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/internal/options"
)

// querier is what every wrapper of one connection runs statements with:
// Exec, Query, QueryRow, SendBatch and CopyFrom, as *pgx.Conn has them.
type querier struct{ x *session }

// Exec runs sql with args, as pgx.Conn.Exec: leading options
// (pgx.QueryExecMode, a pgx.QueryRewriter such as pgx.NamedArgs) are
// honoured, and sql may name a statement prepared with Prepare.
func (q querier) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return q.x.exec(ctx, sql, args)
}

// Query runs sql with args and returns its rows, as pgx.Conn.Query; use
// them with pgx.CollectRows, pgx.ForEachRow or Next and Scan.
func (q querier) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return q.x.query(ctx, sql, args, false)
}

// QueryRow runs sql with args and returns its first row, as
// pgx.Conn.QueryRow.
func (q querier) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return q.x.queryRow(ctx, nil, sql, args)
}

// SendBatch runs the statements queued in b, as pgx.Conn.SendBatch: see
// Batches in the package documentation.
func (q querier) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return q.x.sendBatch(ctx, b)
}

// CopyFrom copies rows into a table, as pgx.Conn.CopyFrom, and fills in
// each row the columns it leaves out whose default the store serves (a
// serial or identity id), drawn as an INSERT draws them: see COPY in the
// package documentation, and [WithAssigned] to learn the values.
func (q querier) CopyFrom(ctx context.Context, tableName pgx.Identifier, columnNames []string, rowSrc pgx.CopyFromSource) (int64, error) {
	return q.x.copyFrom(ctx, tableName, columnNames, rowSrc)
}

// Conn is a *pgx.Conn whose statements get their sequences from the store,
// with the methods of pgx.Conn that pgx programs call. It satisfies sqlc's
// DBTX. As a *pgx.Conn, it is not safe for concurrent use.
type Conn struct {
	querier
	engines *options.Engines
	opts    Options
}

func connect(ctx context.Context, config *pgx.ConnConfig, o Options, optFns []func(*Options)) (*Conn, error) {
	if config == nil {
		return nil, errNilConfig
	}
	o, err := resolve(o, optFns)
	if err != nil {
		return nil, err
	}
	engines := options.NewEngines(o)
	eng, err := engines.Get(ctx, config.Database)
	if err != nil {
		return nil, err
	}
	config = config.Copy()
	engine.CountReports(&config.Config)
	c, err := pgx.ConnectConfig(ctx, config)
	if err != nil {
		engines.Close()
		return nil, err
	}
	x, err := newSession(ctx, eng, c)
	if err != nil {
		c.Close(ctx)
		engines.Close()
		return nil, err
	}
	return &Conn{querier: querier{x}, engines: engines, opts: o}, nil
}

// Prepare prepares sql under name, as pgx.Conn.Prepare: Exec and Query
// with name as their sql run it. A text seqshim rewrites at each
// execution (one with sequence calls) is prepared by seqshim only; the
// description returned then has no parameter or field types.
func (c *Conn) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return c.x.prepare(ctx, name, sql)
}

// Deallocate releases a prepared statement, as pgx.Conn.Deallocate.
func (c *Conn) Deallocate(ctx context.Context, name string) error {
	return c.x.deallocate(ctx, name)
}

// DeallocateAll releases every prepared statement of the connection, as
// pgx.Conn.DeallocateAll: those prepared through the wrapper, pgx's
// cached ones and seqshim's own.
func (c *Conn) DeallocateAll(ctx context.Context) error {
	return c.x.deallocateAll(ctx)
}

// Begin begins a transaction, as pgx.Conn.Begin.
func (c *Conn) Begin(ctx context.Context) (pgx.Tx, error) {
	return c.BeginTx(ctx, pgx.TxOptions{})
}

// BeginTx begins a transaction with options, as pgx.Conn.BeginTx.
func (c *Conn) BeginTx(ctx context.Context, txOptions pgx.TxOptions) (pgx.Tx, error) {
	tx, err := c.x.begin(ctx, txOptions)
	if err != nil {
		return nil, err
	}
	return &Tx{x: c.x, tx: tx}, nil
}

// Ping checks the connection, as pgx.Conn.Ping.
func (c *Conn) Ping(ctx context.Context) error { return c.x.conn.Ping(ctx) }

// Config returns a copy of the connection's configuration.
func (c *Conn) Config() *pgx.ConnConfig { return c.x.conn.Config() }

// Options returns the seqshim options in effect.
func (c *Conn) Options() Options { return c.opts }

// Conn returns the underlying *pgx.Conn. Statements run on it directly
// bypass seqshim: the database's own sequences answer them.
func (c *Conn) Conn() *pgx.Conn { return c.x.conn }

// PgConn returns the underlying *pgconn.PgConn.
func (c *Conn) PgConn() *pgconn.PgConn { return c.x.conn.PgConn() }

// IsClosed reports whether the connection is closed.
func (c *Conn) IsClosed() bool { return c.x.conn.IsClosed() }

// Close closes the connection, then releases its share of the store and
// cache, as [Pool.Close] does.
func (c *Conn) Close(ctx context.Context) error {
	err := c.x.conn.Close(ctx)
	if cerr := c.engines.Close(); err == nil {
		err = cerr
	}
	return err
}
