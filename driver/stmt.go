package driver

import (
	"context"
	"database/sql/driver"
	"errors"

	"github.com/seqshim/seqshim/internal/engine"
)

// stmt is a prepared statement with sequence work to do. Every execution
// applies the plan anew, so it draws fresh values; the SQL sent to the
// database is rendered then (with bind arguments, as a stable text that the
// inner driver's statement cache keeps prepared). Prepared statements with
// nothing to rewrite are the inner driver's own.
type stmt struct {
	c *conn
	p *engine.Prepared
}

var (
	_ driver.Stmt             = (*stmt)(nil)
	_ driver.StmtExecContext  = (*stmt)(nil)
	_ driver.StmtQueryContext = (*stmt)(nil)
)

// Close releases nothing in the database: no inner statement is held.
func (s *stmt) Close() error {
	s.c = nil
	return nil
}

// NumInput is the number of parameters of the SQL as written: parameters
// seqshim adds for call values are hidden.
func (s *stmt) NumInput() int { return s.p.NumParams() }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), valuesToNamed(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), valuesToNamed(args))
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if s.c == nil {
		return nil, errStmtClosed
	}
	return s.c.execPlan(ctx, s.p, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if s.c == nil {
		return nil, errStmtClosed
	}
	return s.c.queryPlan(ctx, s.p, args)
}

var errStmtClosed = errors.New("seqshim: statement is closed")

// discardStmt is the inner driver's prepared DISCARD SEQUENCES or DISCARD
// ALL: each successful execution clears the session's currval and lastval,
// as it does in the database.
type discardStmt struct {
	driver.Stmt
	c *conn
}

var (
	_ driver.StmtExecContext  = (*discardStmt)(nil)
	_ driver.StmtQueryContext = (*discardStmt)(nil)
)

func (s *discardStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), valuesToNamed(args))
}

func (s *discardStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), valuesToNamed(args))
}

func (s *discardStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	res, err := stmtExec(ctx, s.Stmt, args)
	if err == nil {
		s.c.sess.Discard()
	}
	return res, err
}

func (s *discardStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := stmtQuery(ctx, s.Stmt, args)
	if err == nil {
		s.c.sess.Discard()
	}
	return rows, err
}

func valuesToNamed(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}
