package driver

import (
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/sequence"
)

// convertErr turns an error of seqshim's own (a store, the cache, the
// planner, the session) into what the application would get from the
// database. Inner driver errors never come through here.
//
// For the postgres dialect, a *sequence.Error becomes a *pgconn.PgError with
// the same SQLSTATE and message, exactly the type pgx returns, so code that
// inspects pgx errors keeps working. Other errors keep their chain, except
// that nothing ever matches driver.ErrBadConn: database/sql would retry the
// statement on another connection, drawing values again or repeating DDL.
func (c *conn) convertErr(err error) error {
	if err == nil {
		return nil
	}
	var se *sequence.Error
	if c.c.dialect == rewrite.Postgres && errors.As(err, &se) {
		return &pgconn.PgError{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: se.Code, Message: se.Message}
	}
	if errors.Is(err, driver.ErrBadConn) {
		return fmt.Errorf("seqshim: %v", err) // %v: cut the chain on purpose
	}
	return err
}
