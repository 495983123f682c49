package engine

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// DB is the one way the core reaches its database session: every statement
// it sends of its own (a transaction's COMMIT under the commit protocol,
// the raise that aborts a transaction, table DDL without its defaults,
// catalog queries) and every status it reads goes through it, on the same
// session as the front end's statements, inside its transaction block when
// one is open.
//
// The postgres dialect needs one: [NewSession] refuses a session without
// it, so that no check (a failed transaction, a read-only one, the
// search_path, the catalog) is ever silently skipped. [PgConn] is the DB of
// a pgx session, which both pgx-based front ends have. The MySQL and SQLite
// dialects read nothing of their session and take nil.
type DB interface {
	// TxStatus is the session's transaction status as the server last
	// reported it: 'I' idle, 'T' in a transaction block, 'E' in a failed
	// one.
	TxStatus() byte
	// ParameterStatus returns a parameter the server reports
	// (default_transaction_read_only, in_hot_standby), "" if it does not.
	ParameterStatus(key string) string
	// Exec runs sql, one statement or several, without parameters, and
	// returns the rows its last statement affected, or the first error.
	Exec(ctx context.Context, sql string) (int64, error)
	// Query runs one statement with text parameters ($1, …) and returns
	// the rows of its result as text, NULL as "".
	Query(ctx context.Context, sql string, args ...string) ([][]string, error)
	// IsClosed reports whether the session is closed: after a COMMIT
	// whose answer was lost, it tells whether the transaction may have
	// committed.
	IsClosed() bool
}

// PgConn returns the [DB] of a pgx session.
func PgConn(pc *pgconn.PgConn) DB { return pgConn{pc} }

type pgConn struct{ pc *pgconn.PgConn }

func (c pgConn) TxStatus() byte                    { return c.pc.TxStatus() }
func (c pgConn) ParameterStatus(key string) string { return c.pc.ParameterStatus(key) }
func (c pgConn) IsClosed() bool                    { return c.pc.IsClosed() }

func (c pgConn) Exec(ctx context.Context, sql string) (int64, error) {
	res, err := c.pc.Exec(ctx, sql).ReadAll()
	if err != nil || len(res) == 0 {
		return 0, err
	}
	return res[len(res)-1].CommandTag.RowsAffected(), nil
}

// Query sends sql by the extended protocol (the unnamed statement, text
// formats), not through any statement cache of the front end's: DISCARD
// ALL would have deallocated a cached statement behind the cache's back.
func (c pgConn) Query(ctx context.Context, sql string, args ...string) ([][]string, error) {
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	res := c.pc.ExecParams(ctx, sql, params, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	rows := make([][]string, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = make([]string, len(r))
		for j, v := range r {
			rows[i][j] = string(v)
		}
	}
	return rows, nil
}

// errNoDB is NewSession's error for a postgres-dialect session without a
// [DB].
var errNoDB = errors.New("seqshim: the postgres dialect needs the database session's transaction status, parameters and catalog, " +
	"which this front end or inner driver does not give: use pgx (the default inner driver)")

// queryRow runs a catalog query and returns its first row, nil when it has
// none.
func (s *Session[A]) queryRow(ctx context.Context, sql string, args ...string) ([]string, error) {
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return rows[0], nil
}
