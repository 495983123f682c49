package driver

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
)

// conn wraps one inner connection: one physical database session, which also
// carries the session's currval and lastval.
type conn struct {
	c     *Connector
	seq   *sharedSeq
	inner driver.Conn
	sess  session

	scratch    [4]int64             // call values of one statement
	argBuf     []driver.NamedValue  // arguments of a rewritten Exec, reused
	plans      map[string]*connPlan // texts with sequence work seen here
	lastHandle *seqcache.Handle     // cache handle of the last nextval
	pg         *pgconn.PgConn       // the inner pgx session, if any: its transaction status

	// The inner connection's optional interfaces, looked up once.
	execer    driver.ExecerContext
	queryer   driver.QueryerContext
	preparer  driver.ConnPrepareContext
	beginner  driver.ConnBeginTx
	pinger    driver.Pinger
	checker   driver.NamedValueChecker
	resetter  driver.SessionResetter
	validator driver.Validator

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

func newConn(c *Connector, seq *sharedSeq, inner driver.Conn) *conn {
	cn := &conn{c: c, seq: seq, inner: inner}
	cn.execer, _ = inner.(driver.ExecerContext)
	cn.queryer, _ = inner.(driver.QueryerContext)
	cn.preparer, _ = inner.(driver.ConnPrepareContext)
	cn.beginner, _ = inner.(driver.ConnBeginTx)
	cn.pinger, _ = inner.(driver.Pinger)
	cn.checker, _ = inner.(driver.NamedValueChecker)
	cn.resetter, _ = inner.(driver.SessionResetter)
	cn.validator, _ = inner.(driver.Validator)
	if pc, ok := inner.(interface{ Conn() *pgx.Conn }); ok && c.dialect == rewrite.Postgres {
		cn.pg = pc.Conn().PgConn()
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
	cp, err := c.plan(query)
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	if cp == nil || passThrough(cp.plan) {
		st, err := c.prepareInner(ctx, query)
		if err == nil && rewrite.DiscardsSequences(c.c.dialect, query) {
			st = &discardStmt{Stmt: st, c: c}
		}
		return st, err
	}
	return &stmt{c: c, query: query, cp: cp}, nil
}

func (c *conn) prepareInner(ctx context.Context, query string) (driver.Stmt, error) {
	if c.preparer != nil {
		return c.preparer.PrepareContext(ctx, query)
	}
	return c.inner.Prepare(query)
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

// BeginTx starts a transaction on the inner connection and returns the inner
// transaction as it is: sequence values are not transactional, as in
// PostgreSQL, so there is nothing to do at commit or rollback.
func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.beginner != nil {
		return c.beginner.BeginTx(ctx, opts)
	}
	if opts.Isolation != 0 || opts.ReadOnly {
		return nil, errors.New("seqshim: inner driver does not support transaction options")
	}
	return c.inner.Begin() //nolint:staticcheck // the inner driver has nothing else
}

// ExecContext executes query. Without a sequence call it goes to the inner
// connection as it is; otherwise the plan is applied.
func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cp, err := c.plan(query)
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	if cp == nil {
		if c.execer == nil {
			return nil, driver.ErrSkip // database/sql prepares instead
		}
		res, err := c.execer.ExecContext(ctx, query, args)
		if err == nil {
			c.afterPassThrough(query)
		}
		return res, err
	}
	return c.execPlan(ctx, query, cp, args)
}

// QueryContext runs query. Without a sequence call it goes to the inner
// connection, whose rows are returned as they are; a statement made only of
// sequence calls is answered here without a round trip.
func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cp, err := c.plan(query)
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	if cp == nil {
		if c.queryer == nil {
			return nil, driver.ErrSkip // database/sql prepares instead
		}
		rows, err := c.queryer.QueryContext(ctx, query, args)
		if err == nil {
			c.afterPassThrough(query)
		}
		return rows, err
	}
	return c.queryPlan(ctx, query, cp, args)
}

// Ping forwards to the inner connection, if it can ping.
func (c *conn) Ping(ctx context.Context) error {
	if c.pinger == nil {
		return nil
	}
	return c.pinger.Ping(ctx)
}

// CheckNamedValue forwards to the inner connection, so arguments reach it
// exactly as they would without seqshim (pgx accepts any value, including
// its own option arguments such as pgx.QueryExecMode).
func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if c.checker == nil {
		return driver.ErrSkip // database/sql's default conversion
	}
	return c.checker.CheckNamedValue(nv)
}

// ResetSession forwards to the inner connection. currval and lastval are
// kept: they belong to the physical session, which the pool reuses as is.
func (c *conn) ResetSession(ctx context.Context) error {
	if c.resetter == nil {
		return nil
	}
	return c.resetter.ResetSession(ctx)
}

// IsValid forwards to the inner connection, if it can tell.
func (c *conn) IsValid() bool {
	if c.validator == nil {
		return true
	}
	return c.validator.IsValid()
}

// connPlan is what a SQL text with sequence work needs on one connection:
// its plan and, once rendered, the text sent to the database when the call
// values are bound as parameters (that text depends on the plan only).
type connPlan struct {
	plan  *rewrite.Plan
	bound string // "" until rendered, and when values are inlined
}

// maxConnPlans bounds a connection's memo of plans.
const maxConnPlans = 256

// plan returns what query needs, nil when it goes to the inner connection
// as it is. A text without a trigger word costs one allocation-free scan; a
// text seen before on this connection, one map lookup, no lock (a conn is
// used by one goroutine at a time); others are planned by the Connector's
// shared, locked plan cache.
func (c *conn) plan(query string) (*connPlan, error) {
	if !rewrite.HasTrigger(query) {
		return nil, nil
	}
	cp := c.plans[query]
	if cp == nil {
		pl, _ := c.c.planner.Plan(query)
		if len(c.plans) >= maxConnPlans {
			clear(c.plans)
		}
		if c.plans == nil {
			c.plans = make(map[string]*connPlan)
		}
		cp = &connPlan{plan: pl}
		c.plans[query] = cp
	}
	if cp.plan.PassThrough() {
		return nil, nil
	}
	return cp, cp.plan.Err
}

// passThrough reports whether the plan leaves the SQL as it is.
func passThrough(pl *rewrite.Plan) bool {
	if pl.PassThrough() {
		return true
	}
	for i := range pl.Statements {
		if pl.Statements[i].Kind != rewrite.PassThrough {
			return false
		}
	}
	return true
}

// afterPassThrough clears the session state after DISCARD SEQUENCES or
// DISCARD ALL succeeded in the database.
func (c *conn) afterPassThrough(query string) {
	if rewrite.DiscardsSequences(c.c.dialect, query) {
		c.sess.reset()
	}
}
