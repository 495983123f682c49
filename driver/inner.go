package driver

import (
	"context"
	"database/sql/driver"
	"errors"
)

// The inner driver's fallbacks: what database/sql itself would do with an
// inner driver that lacks an optional interface (prepare, execute, close),
// for the SQL seqshim sends on its own behalf. pgx has every interface, so
// with pgx none of these fallbacks runs.

func (c *conn) prepareInner(ctx context.Context, query string) (driver.Stmt, error) {
	if c.preparer != nil {
		return c.preparer.PrepareContext(ctx, query)
	}
	return c.inner.Prepare(query)
}

// innerExec runs SQL on the inner connection, preparing it when the inner
// driver has no ExecerContext.
func (c *conn) innerExec(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.execer != nil {
		res, err := c.execer.ExecContext(ctx, query, args)
		if !errors.Is(err, driver.ErrSkip) {
			return res, err
		}
	}
	st, err := c.prepareInner(ctx, query)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return stmtExec(ctx, st, args)
}

// innerQuery runs SQL on the inner connection, preparing it when the inner
// driver has no QueryerContext.
func (c *conn) innerQuery(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.queryer != nil {
		rows, err := c.queryer.QueryContext(ctx, query, args)
		if !errors.Is(err, driver.ErrSkip) {
			return rows, err
		}
	}
	st, err := c.prepareInner(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := stmtQuery(ctx, st, args)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &stmtRows{Rows: rows, stmt: st}, nil
}

// stmtExec executes an inner statement, with its context when it takes one.
func stmtExec(ctx context.Context, st driver.Stmt, args []driver.NamedValue) (driver.Result, error) {
	if se, ok := st.(driver.StmtExecContext); ok {
		return se.ExecContext(ctx, args)
	}
	//lint:ignore SA1019 the inner statement has nothing else
	return st.Exec(namedToValues(args))
}

// stmtQuery runs an inner statement, with its context when it takes one.
func stmtQuery(ctx context.Context, st driver.Stmt, args []driver.NamedValue) (driver.Rows, error) {
	if sq, ok := st.(driver.StmtQueryContext); ok {
		return sq.QueryContext(ctx, args)
	}
	//lint:ignore SA1019 the inner statement has nothing else
	return st.Query(namedToValues(args))
}

func namedToValues(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// stmtRows closes the statement prepared for a query with its rows.
type stmtRows struct {
	driver.Rows
	stmt driver.Stmt
}

func (r *stmtRows) Close() error {
	return errors.Join(r.Rows.Close(), r.stmt.Close())
}
