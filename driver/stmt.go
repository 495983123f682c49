package driver

import (
	"context"
	"database/sql/driver"
	"errors"
)

// stmt is a prepared statement. Every execution runs the statement's
// lifecycle anew (it draws fresh values, sees the transaction's held DDL,
// a COMMIT among them); when the engine says the text goes as it is, the
// inner driver's own prepared statement of it runs, if it has one (a text
// with sequence work has none: what is sent depends on the execution).
type stmt struct {
	c        *conn
	query    string
	inner    driver.Stmt // nil for a text with sequence work
	numInput int         // without inner: the parameters of the text as written
}

var (
	_ driver.Stmt             = (*stmt)(nil)
	_ driver.StmtExecContext  = (*stmt)(nil)
	_ driver.StmtQueryContext = (*stmt)(nil)
)

// Close closes the inner statement, if any.
func (s *stmt) Close() error {
	c, inner := s.c, s.inner
	s.c, s.inner = nil, nil
	if c == nil || inner == nil {
		return nil
	}
	return inner.Close()
}

// NumInput is the number of parameters of the SQL as written: the inner
// statement's, or the planner's count; parameters seqshim adds for call
// values are hidden.
func (s *stmt) NumInput() int {
	if s.inner != nil {
		return s.inner.NumInput()
	}
	return s.numInput
}

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
	return s.c.exec(ctx, s.query, args, s.inner)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if s.c == nil {
		return nil, errStmtClosed
	}
	return s.c.query(ctx, s.query, args, s.inner)
}

var errStmtClosed = errors.New("seqshim: statement is closed")

func valuesToNamed(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}
