package driver

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/internal/engine"
)

// numOptions counts pgx's leading option arguments (pgx.QueryExecMode,
// pgx.QueryResultFormats, …): pgx's NamedValueChecker lets them through
// database/sql, and they are not SQL parameters.
func numOptions(args []driver.NamedValue) int {
	n := 0
	for n < len(args) {
		switch args[n].Value.(type) {
		case pgx.QueryExecMode, pgx.QueryResultFormats, pgx.QueryResultFormatsByOID, pgx.QueryRewriter:
			n++
		default:
			return n
		}
	}
	return n
}

// namedArgs are database/sql's arguments as the engine reads them: a slice
// type, so that handing them over costs no allocation (see
// [engine.Session]).
type namedArgs []driver.NamedValue

func (a namedArgs) Len() int { return len(a) }

// Arg returns argument i, resolving driver.Valuer.
func (a namedArgs) Arg(i int) (any, error) {
	v := a[i].Value
	if vr, ok := v.(driver.Valuer); ok {
		return vr.Value()
	}
	return v, nil
}

// execPlan applies a plan with sequence work, for ExecContext.
func (c *conn) execPlan(ctx context.Context, p *engine.Prepared, args []driver.NamedValue) (driver.Result, error) {
	nopt := numOptions(args)
	ev, err := c.sess.Evaluate(ctx, p, namedArgs(args[nopt:]))
	if err != nil {
		return nil, engineErr(err)
	}
	if !ev.Send {
		return driver.RowsAffected(ev.RowsAffected), nil
	}
	sql, dbArgs, err := c.render(p, args, nopt, ev.Values, c.argBuf)
	if err != nil {
		return nil, err
	}
	res, err := c.innerExec(ctx, sql, dbArgs)
	if err == nil {
		err = engineErr(c.sess.AfterStatements(ctx, p))
	}
	// The inner driver is done with the arguments when Exec returns: keep
	// the slice for the next statement, without the caller's values.
	if len(dbArgs) > len(args) {
		clear(dbArgs)
		c.argBuf = dbArgs[:0]
	}
	return res, err
}

// queryPlan applies a plan with sequence work, for QueryContext. The rows
// are those of the first statement, as with pgx.
func (c *conn) queryPlan(ctx context.Context, p *engine.Prepared, args []driver.NamedValue) (driver.Rows, error) {
	nopt := numOptions(args)
	ev, err := c.sess.Evaluate(ctx, p, namedArgs(args[nopt:]))
	if err != nil {
		return nil, engineErr(err)
	}
	if !ev.Send {
		if ev.First != nil {
			return (*localRows)(ev.First), nil
		}
		return &localRows{}, nil
	}
	// A fresh slice of arguments: rows may still read them after Query
	// returns.
	sql, dbArgs, err := c.render(p, args, nopt, ev.Values, nil)
	if err != nil {
		return nil, err
	}
	if ev.First != nil {
		// The first result is answered here; the rest still has to run.
		if _, err := c.innerExec(ctx, sql, dbArgs); err != nil {
			return nil, err
		}
		if err := c.sess.AfterStatements(ctx, p); err != nil {
			return nil, engineErr(err)
		}
		return (*localRows)(ev.First), nil
	}
	rows, err := c.innerQuery(ctx, sql, dbArgs)
	if err == nil {
		if err := c.sess.AfterStatements(ctx, p); err != nil {
			rows.Close()
			return nil, engineErr(err)
		}
	}
	return rows, err
}

// render returns the SQL of the statements that go to the database, and its
// arguments: the caller's, plus the call values when they are bound as
// parameters rather than inlined, in buf when it has room.
func (c *conn) render(p *engine.Prepared, args []driver.NamedValue, nopt int, values []int64, buf []driver.NamedValue) (string, []driver.NamedValue, error) {
	sql, bound := c.sess.SQL(p, values)
	if !bound {
		return sql, args, nil
	}
	if got := len(args) - nopt; got != p.NumParams() {
		return "", nil, fmt.Errorf("seqshim: the statement has %d parameters but %d arguments were given", p.NumParams(), got)
	}
	n := len(args) + len(values)
	if cap(buf) < n {
		buf = make([]driver.NamedValue, n)
	}
	dbArgs := buf[:n]
	copy(dbArgs, args)
	for i, v := range values {
		// Call i of the plan is parameter NumParams+1+i (rewrite.Plan.AppendSQL).
		dbArgs[len(args)+i] = driver.NamedValue{Ordinal: p.NumParams() + 1 + i, Value: v}
	}
	return sql, dbArgs, nil
}
