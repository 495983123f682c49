package driver

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
// would ignore. Both need the inner pgx session's transaction status, so
// this applies when the inner driver is pgx's; other inner drivers' sessions
// are left as they are.

// codeInFailedTransaction is PostgreSQL's in_failed_sql_transaction.
const codeInFailedTransaction = "25P02"

// abortTimeout bounds the statement that aborts the database's transaction
// after a failure seqshim answered, which may be a cancelled context.
const abortTimeout = 5 * time.Second

// txFailed returns PostgreSQL's error for a statement in a transaction that
// has failed, nil when the session is not in one.
func (c *conn) txFailed() error {
	if c.pg == nil || c.pg.TxStatus() != 'E' {
		return nil
	}
	return &pgconn.PgError{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: codeInFailedTransaction,
		Message: "current transaction is aborted, commands ignored until end of transaction block"}
}

// fail returns err as the application sees it ([conn.convertErr]) for a
// statement that failed in seqshim, having made the database abort the
// session's transaction block, if one is open, with the same error.
func (c *conn) fail(ctx context.Context, err error) error {
	err = c.convertErr(err)
	if c.pg == nil || c.pg.TxStatus() != 'T' {
		return err
	}
	code, msg := "P0001", "seqshim: "+err.Error() // RAISE's default code
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		code, msg = pe.Code, pe.Message
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	// The raise is expected to fail; if it could not be sent, the session
	// is broken and pgx reports so to database/sql.
	_, _ = c.pg.Exec(ctx, raiseSQL(code, msg)).ReadAll()
	return err
}

// raiseSQL is a statement that fails with SQLSTATE code and message msg.
// The message is an E'…' literal, read alike whatever
// standard_conforming_strings says, inside a dollar quote whose tag it does
// not contain.
func raiseSQL(code, msg string) string {
	if len(code) != 5 || strings.ContainsFunc(code, func(r rune) bool { return (r < '0' || r > '9') && (r < 'A' || r > 'Z') }) {
		code = "P0001"
	}
	msg = strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", "").Replace(msg)
	body := "BEGIN RAISE EXCEPTION USING ERRCODE = '" + code + "', MESSAGE = E'" + msg + "'; END"
	tag := "$seqshim$"
	for strings.Contains(body, tag) {
		tag = tag[:len(tag)-1] + "x$"
	}
	return "DO " + tag + body + tag
}
