package driver

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// innerCatalog is the engine's view of the inner connection's settings and
// catalog, for resolving names through the search_path: queries on the
// same database session, inside its transaction if one is open.
type innerCatalog struct {
	c   *conn
	pgx bool // the inner connection is pgx's
}

// QueryRow runs sql on the inner connection and returns the first row as
// text.
func (ic innerCatalog) QueryRow(ctx context.Context, sql string, args ...string) (row []string, err error) {
	named := make([]driver.NamedValue, 0, len(args)+1)
	if ic.pgx {
		// Not through pgx's statement cache: DISCARD ALL would have
		// deallocated its statements behind its back.
		named = append(named, driver.NamedValue{Ordinal: 1, Value: pgx.QueryExecModeExec})
	}
	for _, a := range args {
		named = append(named, driver.NamedValue{Ordinal: len(named) + 1, Value: a})
	}
	rows, err := ic.c.innerQuery(ctx, sql, named)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := rows.Close(); err == nil && cerr != nil {
			row, err = nil, cerr
		}
	}()
	dest := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(dest); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, err
	}
	row = make([]string, len(dest))
	for i, v := range dest {
		switch v := v.(type) {
		case nil:
		case string:
			row[i] = v
		case []byte:
			row[i] = string(v)
		default:
			row[i] = fmt.Sprint(v)
		}
	}
	return row, nil
}

// errPrepareSchemaDrop refuses to prepare DROP SCHEMA … CASCADE of a
// schema with store sequences, which must be dropped after each execution.
var errPrepareSchemaDrop = &pgconn.PgError{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "0A000",
	Message: "seqshim: DROP SCHEMA … CASCADE of a schema holding store sequences cannot be prepared: execute it directly"}

// pathStmt is the inner driver's prepared statement of a text that may
// change the search_path (SET search_path, SET ROLE, COMMIT, …): each
// execution is noted, as if the text were sent anew.
type pathStmt struct {
	driver.Stmt
	c     *conn
	query string
}

var (
	_ driver.StmtExecContext  = (*pathStmt)(nil)
	_ driver.StmtQueryContext = (*pathStmt)(nil)
)

func (s *pathStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), valuesToNamed(args))
}

func (s *pathStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), valuesToNamed(args))
}

func (s *pathStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.c.sess.PathStatement(s.query)
	return stmtExec(ctx, s.Stmt, args)
}

func (s *pathStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.c.sess.PathStatement(s.query)
	return stmtQuery(ctx, s.Stmt, args)
}
