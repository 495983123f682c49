package driver

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"

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
		case nil, int64, string, []byte, bool, float64, time.Time:
			// database/sql's own value types, tested first: they cost a
			// comparison, the interface below a lookup.
			return n
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

// request says how the inner driver sends query with args, of which the
// first nopt are options; rows is true for a Query. pgx uses the extended protocol, but
// for a Query in the simple protocol mode (the connection's default or an
// option) and an Exec without arguments, which it always sends by the
// simple protocol. Another inner driver's protocol is not known: the
// engine lets a string of several statements through.
func (c *conn) request(args []driver.NamedValue, nopt int, rows bool) engine.Request {
	if !c.pgx {
		return engine.Request{Rows: rows}
	}
	simple := c.simple
	for _, a := range args[:nopt] {
		if m, ok := a.Value.(pgx.QueryExecMode); ok {
			simple = m == pgx.QueryExecModeSimpleProtocol
		}
	}
	return engine.Request{Rows: rows, Extended: !simple && (rows || len(args) > nopt)}
}

// exec runs one execution of query with args: the engine's answer, or what
// it says to send, on prepared (the inner driver's statement of query) when
// the text goes as it is and there is one.
func (c *conn) exec(ctx context.Context, query string, args []driver.NamedValue, prepared driver.Stmt) (driver.Result, error) {
	nopt := numOptions(args)
	step, err := c.sess.Run(ctx, query, namedArgs(args[nopt:]), c.request(args, nopt, false))
	if err != nil {
		return nil, engineErr(err)
	}
	if step.SQL == "" {
		return driver.RowsAffected(step.RowsAffected), nil
	}
	var res driver.Result
	switch {
	case step.AsIs && prepared != nil:
		res, err = stmtExec(ctx, prepared, args)
	case step.AsIs:
		res, err = c.innerExec(ctx, query, args)
	default:
		var dbArgs []driver.NamedValue
		if dbArgs, err = c.bind(&step, args, nopt, c.argBuf); err == nil {
			res, err = c.innerExec(ctx, step.SQL, dbArgs)
			// The inner driver is done with the arguments when Exec
			// returns: keep the slice for the next statement, without the
			// caller's values.
			if len(dbArgs) > len(args) {
				clear(dbArgs)
				c.argBuf = dbArgs[:0]
			}
		}
	}
	if err := c.sess.Finish(ctx, &step, err); err != nil {
		return nil, engineErr(err)
	}
	if step.Affected {
		// The string's last statement was answered here: its rows
		// affected are the result, as pgx's Exec returns the last
		// command tag.
		return driver.RowsAffected(step.RowsAffected), nil
	}
	return res, nil
}

// query is exec for QueryContext. When the engine answered the first
// statement of a string, the rest still runs, and the rows are the
// engine's, as pgx returns the first result of a string; rows without
// columns for a command.
func (c *conn) query(ctx context.Context, query string, args []driver.NamedValue, prepared driver.Stmt) (driver.Rows, error) {
	nopt := numOptions(args)
	step, err := c.sess.Run(ctx, query, namedArgs(args[nopt:]), c.request(args, nopt, true))
	if err != nil {
		return nil, engineErr(err)
	}
	if step.SQL == "" {
		if step.Rows != nil {
			return (*localRows)(step.Rows), nil
		}
		return &localRows{}, nil
	}
	var rows driver.Rows
	switch {
	case step.AsIs && prepared != nil:
		rows, err = stmtQuery(ctx, prepared, args)
	case step.AsIs:
		rows, err = c.innerQuery(ctx, query, args)
	default:
		// A fresh slice of arguments: rows may still read them after
		// Query returns.
		var dbArgs []driver.NamedValue
		if dbArgs, err = c.bind(&step, args, nopt, nil); err != nil {
			break
		}
		if step.Rows != nil {
			_, err = c.innerExec(ctx, step.SQL, dbArgs)
		} else {
			rows, err = c.innerQuery(ctx, step.SQL, dbArgs)
		}
	}
	if err := c.sess.Finish(ctx, &step, err); err != nil {
		if rows != nil {
			rows.Close()
		}
		return nil, engineErr(err)
	}
	if step.Rows != nil {
		return (*localRows)(step.Rows), nil
	}
	return rows, nil
}

// bind returns the arguments of a rewritten statement: the caller's, plus
// the call values when they are bound as parameters rather than inlined,
// in buf when it has room.
func (c *conn) bind(step *engine.Step, args []driver.NamedValue, nopt int, buf []driver.NamedValue) ([]driver.NamedValue, error) {
	if !step.Bound {
		return args, nil
	}
	if got := len(args) - nopt; got != step.NumParams() {
		return nil, fmt.Errorf("seqshim: the statement has %d parameters but %d arguments were given", step.NumParams(), got)
	}
	n := len(args) + len(step.Values)
	if cap(buf) < n {
		buf = make([]driver.NamedValue, n)
	}
	dbArgs := buf[:n]
	copy(dbArgs, args)
	for i, v := range step.Values {
		// Call i of the plan is parameter NumParams+1+i (rewrite.Plan.AppendSQL).
		dbArgs[len(args)+i] = driver.NamedValue{Ordinal: step.NumParams() + 1 + i, Value: v}
	}
	return dbArgs, nil
}
