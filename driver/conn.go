package driver

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/engine"
	"github.com/seqshim/seqshim/rewrite"
)

// conn wraps one inner connection: one physical database session, whose
// sequence state (currval, lastval, plans seen) is its engine session.
type conn struct {
	c      *Connector
	inner  driver.Conn
	sess   *engine.Session[namedArgs]
	argBuf []driver.NamedValue // arguments of a rewritten Exec, reused

	innerIfaces // the inner connection's optional interfaces

	ownConnector bool // opened by Driver.Open: Close closes the Connector too

	tracksPath bool // the session resolves names through the search_path
}

// Compile-time checks: every optional interface pgx's connection implements,
// plus Validator.
var (
	_ driver.Conn                       = (*conn)(nil)
	_ driver.ConnPrepareContext         = (*conn)(nil)
	_ driver.ConnBeginTx                = (*conn)(nil)
	_ driver.ExecerContext              = (*conn)(nil)
	_ driver.QueryerContext             = (*conn)(nil)
	_ driver.Pinger                     = (*conn)(nil)
	_ driver.NamedValueChecker          = (*conn)(nil)
	_ driver.SessionResetter            = (*conn)(nil)
	_ driver.Validator                  = (*conn)(nil)
	_ interface{ Unwrap() driver.Conn } = (*conn)(nil)
)

func newConn(c *Connector, eng *engine.Engine, inner driver.Conn) *conn {
	cn := &conn{c: c, inner: inner}
	cn.innerIfaces = lookupIfaces(inner)
	// With pgx inside, the engine sees the session's transaction status.
	var db engine.Conn
	if pc, ok := inner.(interface{ Conn() *pgx.Conn }); ok && eng.Dialect() == rewrite.Postgres {
		db = engine.PgConn(pc.Conn().PgConn())
	}
	cn.sess = engine.NewSession[namedArgs](eng, db)
	if eng.Dialect() == rewrite.Postgres {
		// Unqualified names resolve through the search_path, which the
		// session reads with queries of its own on this connection.
		_, isPgx := inner.(interface{ Conn() *pgx.Conn })
		cn.sess.SetCatalog(innerCatalog{c: cn, pgx: isPgx})
		cn.tracksPath = true
	}
	return cn
}

// Unwrap returns the inner connection; with pgx, a *stdlib.Conn whose Conn
// method returns the *pgx.Conn. sql.Conn.Raw hands out the seqshim
// connection; call Unwrap on it to go further.
func (c *conn) Unwrap() driver.Conn { return c.inner }

// Prepare is PrepareContext without a context.
func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares a statement. A statement with nothing to rewrite
// is the inner driver's statement, returned as it is.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	p, err := c.sess.Plan(ctx, query)
	if err != nil {
		return nil, engineErr(err)
	}
	if c.sess.DropsSchema(query) {
		return nil, errPrepareSchemaDrop
	}
	if p == nil {
		st, err := c.prepareInner(ctx, query)
		if err == nil && c.sess.Engine().Discards(query) {
			st = &discardStmt{Stmt: st, c: c}
		}
		if err == nil && c.sess.AffectsPath(query) {
			st = &pathStmt{Stmt: st, c: c, query: query}
		}
		return st, err
	}
	return &stmt{c: c, p: p}, nil
}

// Close closes the inner connection.
func (c *conn) Close() error {
	err := c.inner.Close()
	if c.ownConnector {
		err = errors.Join(err, c.c.Close())
	}
	return err
}

// Begin is BeginTx with default options.
func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx starts a transaction on the inner connection. Its Commit applies
// the sequence DDL the transaction holds to the store first (see tx).
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var (
		inner driver.Tx
		err   error
	)
	switch {
	case c.beginner != nil:
		inner, err = c.beginner.BeginTx(ctx, opts)
	case opts.Isolation != 0 || opts.ReadOnly:
		return nil, errors.New("seqshim: inner driver does not support transaction options")
	default:
		//lint:ignore SA1019 the inner driver has nothing else
		inner, err = c.inner.Begin()
	}
	if err != nil {
		return nil, err
	}
	c.sess.Begin(opts.ReadOnly)
	return &tx{c: c, inner: inner}, nil
}

// ExecContext executes query. Without a sequence call it goes to the inner
// connection as it is; otherwise the plan is applied.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	p, err := c.sess.Plan(ctx, query)
	if err != nil {
		return nil, engineErr(err)
	}
	if p == nil {
		if c.sess.Holding() {
			return c.execHeld(ctx, query, args)
		}
		if c.execer == nil {
			return nil, driver.ErrSkip // database/sql prepares instead
		}
		res, err := c.execer.ExecContext(ctx, query, args)
		if err != nil {
			return nil, c.sess.DatabaseError(ctx, err)
		}
		c.sess.AfterPassThrough(query)
		if err := c.sess.AfterDatabase(ctx, query); err != nil {
			return nil, err
		}
		return res, nil
	}
	return c.execPlan(ctx, p, args)
}

// QueryContext runs query. Without a sequence call it goes to the inner
// connection, whose rows are returned as they are; a statement made only of
// sequence calls is answered here without a round trip.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	p, err := c.sess.Plan(ctx, query)
	if err != nil {
		return nil, engineErr(err)
	}
	if p == nil {
		if c.sess.Holding() {
			return c.queryHeld(ctx, query, args)
		}
		if c.queryer == nil {
			return nil, driver.ErrSkip // database/sql prepares instead
		}
		if c.sess.DropsSchema(query) {
			// Run to completion before the store's drops.
			if _, err := c.ExecContext(ctx, query, args); err != nil {
				return nil, err
			}
			return &localRows{}, nil
		}
		rows, err := c.queryer.QueryContext(ctx, query, args)
		if err != nil {
			return nil, c.sess.DatabaseError(ctx, err)
		}
		c.sess.AfterPassThrough(query)
		return rows, nil
	}
	return c.queryPlan(ctx, p, args)
}
