package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/sequence"
	"github.com/seqshim/seqshim/sqlstore/internal/sqlitehook"
)

// wrap gives an error of operation op on sequence name (empty for the whole
// store) the database it came from; a configuration error also says what to
// do and is marked with [sequence.Misconfigured]. Sequence errors keep
// PostgreSQL's exact message and are returned as they are.
func (s *Store) wrap(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var se *sequence.Error
	if errors.As(err, &se) {
		return err
	}
	what := op
	if name != "" {
		what += " " + name
	}
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		if problem, ok := s.explain(err); ok {
			return sequence.Misconfigured(fmt.Errorf("sqlstore: %s: %s %s: %w", what, s.where, problem, err))
		}
	}
	if throttled(err) {
		return sequence.Throttled(fmt.Errorf("sqlstore: %s: %s: %w", what, s.where, err))
	}
	return fmt.Errorf("sqlstore: %s: %s: %w", what, s.where, err)
}

// SQLite's primary result codes of a file another connection holds.
const (
	sqliteBusy   = 5
	sqliteLocked = 6
)

// throttled reports whether err is the database refusing a request for want
// of capacity, which a cache takes as back-pressure
// ([sequence.ErrThrottled]): SQLite busy or locked (its error has a Code
// method, modernc.org/sqlite's *Error: the low byte is the primary code), or
// PostgreSQL's lock_not_available (55P03: a lock_timeout passed).
func throttled(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "55P03"
	}
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		c := coded.Code() & 0xff
		return c == sqliteBusy || c == sqliteLocked
	}
	return false
}

// explainSQLite explains the errors of a SQLite database a caller opened
// ([New]) with the registered engine, if any.
func explainSQLite(err error) (string, bool) {
	if eng := sqlitehook.Get(); eng != nil {
		return eng.Explain("", err)
	}
	return "", false
}

// explainPostgres reads PostgreSQL's SQLSTATE: a database that does not exist,
// a login the server refuses, a schema that does not exist and missing
// privileges are configuration errors. A server that cannot be reached is
// not: the driver carries on without the store until it answers.
func explainPostgres(err error) (string, bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return "", false
	}
	switch pe.Code {
	case "3D000": // invalid_catalog_name
		return "does not exist (create the database, or correct its name in the store URL)", true
	case "28P01", "28000": // invalid_password, invalid_authorization_specification
		return "refused the login (check the user and password in the store URL, PGPASSWORD or ~/.pgpass, and the server's pg_hba.conf)", true
	case "3F000": // invalid_schema_name
		return "has no such schema (create the schema of the table, or correct table= in the store URL)", true
	case "42501": // insufficient_privilege
		return "denied a privilege the store needs (grant the user CREATE on the table's schema, or have 'seqctl init' create the table, and SELECT, INSERT, UPDATE, DELETE on it)", true
	}
	return "", false
}
