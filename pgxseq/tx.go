package pgxseq

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Tx is a transaction of a [Pool], [PoolConn] or [Conn]: a pgx.Tx whose
// statements get their sequences from the store, so that sqlc's
// Queries.WithTx takes it. Sequence DDL inside it reaches the store when
// it commits, and not if it rolls back, as in PostgreSQL. Begin on a Tx
// makes a savepoint, as pgx's does.
type Tx struct {
	x       *session
	tx      pgx.Tx // pgx's transaction, which sends BEGIN, COMMIT and ROLLBACK
	release func() // a pool's connection to give back when it ends; nil: none
	depth   int    // > 0: a savepoint, sp_depth, of the transaction tx
	closed  bool
}

var _ pgx.Tx = (*Tx)(nil)

// Begin starts a pseudo nested transaction: a savepoint, as pgx.Tx.Begin.
func (t *Tx) Begin(ctx context.Context) (pgx.Tx, error) {
	if t.closed {
		return nil, pgx.ErrTxClosed
	}
	depth := t.depth + 1
	if _, err := t.x.exec(ctx, "savepoint sp_"+strconv.Itoa(depth), nil); err != nil {
		return nil, err
	}
	return &Tx{x: t.x, tx: t.tx, depth: depth}, nil
}

// Commit commits the transaction (releases the savepoint), as
// pgx.Tx.Commit: the sequence DDL it holds reaches the store first. A
// transaction that failed rolls back, and Commit returns
// pgx.ErrTxCommitRollback.
func (t *Tx) Commit(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	if t.depth > 0 {
		_, err := t.x.exec(ctx, "release savepoint sp_"+strconv.Itoa(t.depth), nil)
		return err
	}
	defer t.end()
	return t.x.commit(ctx, t.tx)
}

// Rollback rolls the transaction back (to the savepoint), as
// pgx.Tx.Rollback: after Commit it returns pgx.ErrTxClosed, so that it can
// be deferred.
func (t *Tx) Rollback(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	if t.depth > 0 {
		_, err := t.x.exec(ctx, "rollback to savepoint sp_"+strconv.Itoa(t.depth), nil)
		return err
	}
	defer t.end()
	return t.x.rollback(ctx, t.tx)
}

// end gives a pool's connection back.
func (t *Tx) end() {
	if t.release != nil {
		t.release()
		t.release = nil
	}
}

// Exec runs sql in the transaction, as pgx.Tx.Exec.
func (t *Tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.closed {
		return pgconn.CommandTag{}, pgx.ErrTxClosed
	}
	return t.x.exec(ctx, sql, args)
}

// Query runs sql in the transaction, as pgx.Tx.Query.
func (t *Tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.closed {
		return errRows(pgx.ErrTxClosed), pgx.ErrTxClosed
	}
	return t.x.query(ctx, sql, args, false)
}

// QueryRow runs sql in the transaction, as pgx.Tx.QueryRow.
func (t *Tx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.closed {
		return &row{err: pgx.ErrTxClosed}
	}
	return t.x.queryRow(ctx, nil, sql, args)
}

// SendBatch runs a batch in the transaction, as pgx.Tx.SendBatch.
func (t *Tx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.closed {
		return pgx.FailedBatchResults(b, pgx.ErrTxClosed)
	}
	return t.x.sendBatch(ctx, b)
}

// CopyFrom copies rows in the transaction, as pgx.Tx.CopyFrom: see
// [Conn.CopyFrom].
func (t *Tx) CopyFrom(ctx context.Context, tableName pgx.Identifier, columnNames []string, rowSrc pgx.CopyFromSource) (int64, error) {
	if t.closed {
		return 0, pgx.ErrTxClosed
	}
	return t.x.copyFrom(ctx, tableName, columnNames, rowSrc)
}

// Prepare prepares a statement on the transaction's connection, as
// pgx.Tx.Prepare: see [Conn.Prepare].
func (t *Tx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if t.closed {
		return nil, pgx.ErrTxClosed
	}
	return t.x.prepare(ctx, name, sql)
}

// LargeObjects returns pgx's large objects of the transaction (they have
// nothing to do with sequences, and go to the database directly).
func (t *Tx) LargeObjects() pgx.LargeObjects { return t.tx.LargeObjects() }

// Conn returns the underlying *pgx.Conn. Statements run on it directly
// bypass seqshim.
func (t *Tx) Conn() *pgx.Conn { return t.x.conn }
