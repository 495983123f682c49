package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL aborts the transaction block a failed statement ran in: later
// statements fail with 25P02 until ROLLBACK, and COMMIT rolls back. A
// statement seqshim answers or refuses without the database must do the
// same, or a transaction could commit the work around a failed nextval, and
// a sequence could be created or a value drawn in a transaction PostgreSQL
// would ignore. Both need the database session's transaction status, which
// the [DB] reports.

// codeInFailedTransaction is PostgreSQL's in_failed_sql_transaction.
const codeInFailedTransaction = "25P02"

// codeRaiseException is RAISE's default SQLSTATE (raise_exception), for an
// error of seqshim's own that has no SQLSTATE.
const codeRaiseException = "P0001"

// abortTimeout bounds the statement that aborts the database's transaction
// after a failure seqshim answered, which may be a cancelled context.
const abortTimeout = 5 * time.Second

// txFailed returns PostgreSQL's error for a statement in a transaction that
// has failed, nil when the session is not in one.
func (s *Session[A]) txFailed() error {
	if s.db == nil || s.db.TxStatus() != 'E' {
		return nil
	}
	return &pgconn.PgError{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: codeInFailedTransaction,
		Message: "current transaction is aborted, commands ignored until end of transaction block"}
}

// Fail returns err, an error of seqshim's own for a statement that failed in
// the engine, as the application sees it: for the postgres dialect a
// *sequence.Error becomes the *pgconn.PgError pgx would return, with the
// same SQLSTATE and message. If a transaction block is open, the database
// first aborts it with the same error, as PostgreSQL does after a failed
// statement. The engine's methods call it on their errors; a front end calls
// it for failures of its own in the middle of a statement.
func (s *Session[A]) Fail(ctx context.Context, err error) error {
	s.heardFrom()
	err = s.eng.convert(err)
	if s.db == nil || s.db.TxStatus() != 'T' {
		return err
	}
	code, msg := codeRaiseException, "seqshim: "+err.Error()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		code, msg = pe.Code, pe.Message
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	// The raise is expected to fail; if it could not be sent, the session
	// is broken and the database driver reports so on its next use.
	_, _ = s.db.Exec(ctx, raiseSQL("EXCEPTION", code, msg))
	return err
}

// raiseSQL is a statement that raises msg at level (EXCEPTION: it fails
// with SQLSTATE code; NOTICE: the client gets a notice).
// The message is an E'…' literal, read alike whatever
// standard_conforming_strings says, inside a dollar quote whose tag it does
// not contain.
func raiseSQL(level, code, msg string) string {
	if len(code) != 5 || strings.ContainsFunc(code, func(r rune) bool { return (r < '0' || r > '9') && (r < 'A' || r > 'Z') }) {
		code = codeRaiseException
	}
	msg = strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", "").Replace(msg)
	body := "BEGIN RAISE " + level + " USING ERRCODE = '" + code + "', MESSAGE = E'" + msg + "'; END"
	tag := "$seqshim$"
	for strings.Contains(body, tag) {
		tag = tag[:len(tag)-1] + "x$"
	}
	return "DO " + tag + body + tag
}
