package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strconv"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// shadowConn is a connection in shadow mode: the inner connection, every
// call forwarded as database/sql itself would make it, plus the counting of
// the nextval calls of each statement that succeeded.
type shadowConn struct {
	inner   driver.Conn
	planner *rewrite.Planner
	shadow  *Shadow
	c       *Connector

	innerIfaces // the inner connection's optional interfaces

	ownConnector bool // opened by Driver.Open: Close closes the Connector too
}

var (
	_ driver.Conn                       = (*shadowConn)(nil)
	_ driver.ConnPrepareContext         = (*shadowConn)(nil)
	_ driver.ConnBeginTx                = (*shadowConn)(nil)
	_ driver.ExecerContext              = (*shadowConn)(nil)
	_ driver.QueryerContext             = (*shadowConn)(nil)
	_ driver.Pinger                     = (*shadowConn)(nil)
	_ driver.NamedValueChecker          = (*shadowConn)(nil)
	_ driver.SessionResetter            = (*shadowConn)(nil)
	_ driver.Validator                  = (*shadowConn)(nil)
	_ interface{ Unwrap() driver.Conn } = (*shadowConn)(nil)
)

func newShadowConn(c *Connector, sh *Shadow, inner driver.Conn) *shadowConn {
	sc := &shadowConn{inner: inner, planner: c.planner, shadow: sh, c: c}
	sc.innerIfaces = lookupIfaces(inner)
	return sc
}

// Unwrap returns the inner connection.
func (c *shadowConn) Unwrap() driver.Conn { return c.inner }

// plan returns the plan of query if it has sequence calls to count. The
// planner's error (a statement seqshim would refuse in serve mode) does not
// matter here: the database runs the text; count says what it cannot count.
func (c *shadowConn) plan(query string) *rewrite.Plan {
	p, _ := c.planner.Plan(query)
	if p == nil || p.PassThrough() {
		return nil
	}
	return p
}

// count queues the draws for the nextval calls of a statement that
// succeeded, with its arguments (pgx's leading option arguments skipped).
func (c *shadowConn) count(p *rewrite.Plan, args []driver.NamedValue) {
	if p == nil {
		return
	}
	args = args[numOptions(args):]
	for i := range p.Statements {
		st := &p.Statements[i]
		switch st.Kind {
		case rewrite.Local, rewrite.Rewrite:
		case rewrite.Reject:
			// A call the database evaluates once per row: how many rows,
			// only the database knows.
			if errors.Is(st.Err, rewrite.ErrUnsupported) {
				c.shadow.uncounted.Add(1)
			}
			continue
		default:
			continue
		}
		rows := int64(1)
		if st.Series != nil {
			lo, ok1 := operand(st.Series.Start, args)
			hi, ok2 := operand(st.Series.End, args)
			if !ok1 || !ok2 {
				c.shadow.uncounted.Add(1)
				continue
			}
			rows = min(st.Series.Rows(lo, hi), maxShadowRows)
		}
		for _, call := range st.Calls {
			if call.Func != rewrite.Nextval || call.Null {
				continue
			}
			name := call.Name
			if call.NameArg >= 0 {
				var ok bool
				if name, ok = nameArg(call.NameArg, args); !ok {
					c.shadow.uncounted.Add(1)
					continue
				}
			}
			if rows > 0 {
				c.shadow.count(name, rows)
			}
		}
	}
}

// operand is the value of a constant or an integer bind argument.
func operand(o rewrite.Operand, args []driver.NamedValue) (int64, bool) {
	if o.Arg < 0 {
		return o.Value, true
	}
	if o.Arg >= len(args) {
		return 0, false
	}
	v, err := namedArgs(args).Arg(o.Arg)
	if err != nil {
		return 0, false
	}
	switch v := v.(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// nameArg is the canonical sequence name in bind argument i.
func nameArg(i int, args []driver.NamedValue) (string, bool) {
	if i >= len(args) {
		return "", false
	}
	v, err := namedArgs(args).Arg(i)
	if err != nil {
		return "", false
	}
	var text string
	switch v := v.(type) {
	case string:
		text = v
	case []byte:
		text = string(v)
	default:
		return "", false
	}
	name, err := sequence.ParseName(text)
	return name, err == nil
}

// Prepare is PrepareContext without a context.
func (c *shadowConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext prepares query on the inner connection; a statement with
// nextval calls counts them at each successful execution.
func (c *shadowConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var (
		st  driver.Stmt
		err error
	)
	if c.preparer != nil {
		st, err = c.preparer.PrepareContext(ctx, query)
	} else {
		st, err = c.inner.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	if p := c.plan(query); p != nil {
		return &shadowStmt{Stmt: st, c: c, p: p}, nil
	}
	return st, nil
}

// Close closes the inner connection.
func (c *shadowConn) Close() error {
	err := c.inner.Close()
	if c.ownConnector {
		err = errors.Join(err, c.c.Close())
	}
	return err
}

// Begin is BeginTx with default options.
func (c *shadowConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx returns the inner connection's transaction, as it is.
func (c *shadowConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.beginner != nil {
		return c.beginner.BeginTx(ctx, opts)
	}
	// database/sql's own checks for a driver without ConnBeginTx.
	if opts.Isolation != driver.IsolationLevel(sql.LevelDefault) {
		return nil, errors.New("sql: driver does not support non-default isolation level")
	}
	if opts.ReadOnly {
		return nil, errors.New("sql: driver does not support read-only transactions")
	}
	//lint:ignore SA1019 the inner driver has nothing else
	return c.inner.Begin()
}

// ExecContext runs query on the inner connection and counts its nextval
// calls if it succeeded.
func (c *shadowConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.execer == nil {
		return nil, driver.ErrSkip
	}
	res, err := c.execer.ExecContext(ctx, query, args)
	if err == nil {
		c.count(c.plan(query), args)
	}
	return res, err
}

// QueryContext runs query on the inner connection and counts its nextval
// calls if it succeeded.
func (c *shadowConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.queryer == nil {
		return nil, driver.ErrSkip
	}
	rows, err := c.queryer.QueryContext(ctx, query, args)
	if err == nil {
		c.count(c.plan(query), args)
	}
	return rows, err
}

// shadowStmt is an inner prepared statement whose executions count its
// nextval calls.
type shadowStmt struct {
	driver.Stmt
	c *shadowConn
	p *rewrite.Plan
}

var (
	_ driver.StmtExecContext  = (*shadowStmt)(nil)
	_ driver.StmtQueryContext = (*shadowStmt)(nil)
)

func (s *shadowStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), valuesToNamed(args))
}

func (s *shadowStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), valuesToNamed(args))
}

func (s *shadowStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	res, err := stmtExec(ctx, s.Stmt, args)
	if err == nil {
		s.c.count(s.p, args)
	}
	return res, err
}

func (s *shadowStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := stmtQuery(ctx, s.Stmt, args)
	if err == nil {
		s.c.count(s.p, args)
	}
	return rows, err
}

// ShadowOf returns the [Shadow] of db, a handle opened with the seqshim
// driver in shadow mode (sql.Open("seqshim", "…?seqshim.mode=shadow&…") or
// sql.OpenDB of a [Connector] with Options.Mode ModeShadow), for its
// figures. As [Stats], it takes no connection when db's driver is
// seqshim's own, and borrows one, unwrapping it, behind a wrapper.
func ShadowOf(ctx context.Context, db *sql.DB) (*Shadow, error) {
	errNotShadow := errors.New("seqshim: ShadowOf: db does not use the seqshim driver in shadow mode")
	if d, ok := db.Driver().(*Driver); ok && d.connector != nil {
		if d.connector.Options().Mode != ModeShadow {
			return nil, errNotShadow
		}
		if sh := d.connector.Shadow(); sh != nil {
			return sh, nil
		}
		// Not connected yet: a connection opens the store.
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var sh *Shadow
	err = c.Raw(func(dc any) error {
		for range 8 { // wrappers of wrappers, within reason
			switch x := dc.(type) {
			case *shadowConn:
				sh = x.shadow
				return nil
			case interface{ Raw() driver.Conn }:
				dc = x.Raw()
			case interface{ Unwrap() driver.Conn }:
				dc = x.Unwrap()
			default:
				return errNotShadow
			}
		}
		return errNotShadow
	})
	return sh, err
}
