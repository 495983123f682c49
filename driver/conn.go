package driver

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/engine"
)

// conn wraps one inner connection: one physical database session, whose
// sequence state (currval, lastval, plans seen, DDL held for its
// transaction) is its engine session. Every statement, whichever way it
// comes (Exec, Query, a prepared statement, a transaction), goes through
// the session's one lifecycle: engine.Session.Run says what to send, and
// engine.Session.Finish hears what the database answered. The methods here
// only convert between database/sql's types and the engine's.
type conn struct {
	c      *Connector
	inner  driver.Conn
	sess   *engine.Session[namedArgs]
	argBuf []driver.NamedValue // arguments of a rewritten Exec, reused
	pgx    bool                // the inner connection is pgx's: see request
	simple bool                // its default QueryExecMode is the simple protocol

	innerIfaces // the inner connection's optional interfaces

	ownConnector bool // opened by Driver.Open: Close closes the Connector too
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

func newConn(ctx context.Context, c *Connector, eng *engine.Engine, inner driver.Conn) (*conn, error) {
	cn := &conn{c: c, inner: inner, innerIfaces: lookupIfaces(inner)}
	if pc, ok := inner.(interface{ Conn() *pgx.Conn }); ok {
		cn.pgx = true
		cn.simple = pc.Conn().Config().DefaultQueryExecMode == pgx.QueryExecModeSimpleProtocol
	}
	sess, err := engine.NewSession[namedArgs](ctx, eng, innerDB(inner))
	if err != nil {
		return nil, fmt.Errorf("%w (inner connection %T)", err, inner)
	}
	cn.sess = sess
	return cn, nil
}

// innerDB is the engine's way to the inner connection's database session:
// pgx's, or the inner connection itself when it is one (tests' fakes); nil
// when it has none, which the postgres dialect refuses at connect.
func innerDB(inner driver.Conn) engine.DB {
	switch x := inner.(type) {
	case interface{ Conn() *pgx.Conn }:
		return engine.PgConn(x.Conn().PgConn())
	case engine.DB:
		return x
	}
	return nil
}

// Unwrap returns the inner connection; with pgx, a *stdlib.Conn whose Conn
// method returns the *pgx.Conn. sql.Conn.Raw hands out the seqshim
// connection; call Unwrap on it to go further.
func (c *conn) Unwrap() driver.Conn { return c.inner }

// Prepare is PrepareContext without a context.
func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares a statement: the engine plans it now, and a text
// that may go to the database as it is is prepared by the inner driver too.
// Each execution runs the statement's lifecycle anew.
func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var inner driver.Stmt
	st, err := c.sess.Prepare(ctx, query, func(ctx context.Context) (err error) {
		inner, err = c.prepareInner(ctx, query)
		return err
	})
	if err != nil {
		return nil, engineErr(err)
	}
	return &stmt{c: c, query: query, inner: inner, numInput: st.NumParams()}, nil
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

// ExecContext runs query's lifecycle, sending what the engine says to the
// inner connection.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.execer == nil {
		return nil, driver.ErrSkip // database/sql prepares instead
	}
	return c.exec(ctx, query, args, nil)
}

// QueryContext runs query's lifecycle: rows of a statement made only of
// sequence calls are answered here, without a round trip; others are the
// inner connection's, as they are.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.queryer == nil {
		return nil, driver.ErrSkip // database/sql prepares instead
	}
	return c.query(ctx, query, args, nil)
}
