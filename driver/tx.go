package driver

import (
	"context"
	"database/sql/driver"

	"github.com/seqshim/seqshim/rewrite"
)

// tx is the inner driver's transaction with seqshim's commit protocol:
// sequence DDL run in the transaction is held by the session and reaches
// the store when Commit is called, before the inner transaction commits
// (see the package doc's "Transactions").
type tx struct {
	c     *conn
	inner driver.Tx
}

var _ driver.Tx = (*tx)(nil)

// Commit applies the DDL the transaction holds to the store, then commits
// the inner transaction; if the store refuses, the inner transaction rolls
// back, and if the database does not commit, the store is put back.
func (t *tx) Commit() error {
	ctx := context.Background()
	t.c.sess.TransactionEnded() // a SET LOCAL of the search_path ends with it
	return t.c.sess.Commit(ctx,
		func(context.Context) error { return t.inner.Commit() },
		func(context.Context) error { return t.inner.Rollback() })
}

// Rollback rolls the inner transaction back; the DDL held goes.
func (t *tx) Rollback() error {
	t.c.sess.TransactionEnded()
	return t.c.sess.Rollback(context.Background(), func(context.Context) error { return t.inner.Rollback() })
}

// execHeld runs query, a text with nothing to rewrite, while the session
// holds sequence DDL for its transaction: COMMIT, ROLLBACK and savepoints
// sent as SQL keep the held DDL in step.
func (c *conn) execHeld(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	var res driver.Result
	send := func(ctx context.Context) error {
		var err error
		res, err = c.innerExec(ctx, query, args)
		return err
	}
	if err := c.sess.PassThrough(ctx, query, send, c.rollbackSQL); err != nil {
		return nil, engineErr(err)
	}
	if res == nil {
		res = driver.RowsAffected(0)
	}
	return res, nil
}

// queryHeld is execHeld for QueryContext.
func (c *conn) queryHeld(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if isControl(c.sess.Engine().Dialect(), query) {
		// Run as an Exec, so that the statement is complete (a COMMIT
		// that fails, fails here) before the engine goes on.
		if _, err := c.execHeld(ctx, query, args); err != nil {
			return nil, err
		}
		return &localRows{}, nil
	}
	var rows driver.Rows
	send := func(ctx context.Context) error {
		var err error
		rows, err = c.innerQuery(ctx, query, args)
		return err
	}
	if err := c.sess.PassThrough(ctx, query, send, c.rollbackSQL); err != nil {
		if rows != nil {
			rows.Close()
		}
		return nil, engineErr(err)
	}
	if rows == nil {
		rows = &localRows{}
	}
	return rows, nil
}

// rollbackSQL rolls the database's transaction back instead of committing
// it, when the store refused the DDL a COMMIT was to apply.
func (c *conn) rollbackSQL(ctx context.Context) error {
	_, err := c.innerExec(ctx, "ROLLBACK", nil)
	return err
}

// isControl reports whether a statement of query is transaction control.
func isControl(d rewrite.Dialect, query string) bool {
	for _, c := range rewrite.TxControls(d, query) {
		if c.Op != rewrite.TxNone {
			return true
		}
	}
	return false
}
