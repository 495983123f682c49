package driver

import (
	"context"
	"database/sql/driver"
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
	return t.c.sess.Commit(context.Background(),
		func(context.Context) error { return t.inner.Commit() },
		func(context.Context) error { return t.inner.Rollback() })
}

// Rollback rolls the inner transaction back; the DDL held goes.
func (t *tx) Rollback() error {
	return t.c.sess.Rollback(context.Background(), func(context.Context) error { return t.inner.Rollback() })
}
