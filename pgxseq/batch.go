package pgxseq

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// sendBatch runs the statements queued in b one after another, each
// planned and drawn for as the same statement sent alone, and keeps their
// results for the program to read (Exec, Query, QueryRow, or the queued
// queries' callbacks at Close). pgx sends a batch as one implicit
// transaction when no transaction block is open: so does this, with a
// transaction block of its own around a batch of several statements (the
// sequence DDL in it reaches the store only if it commits), unless the
// batch begins one itself (pgx.Batch.BeginTx, or a BEGIN first). After a
// failed statement the rest do not run and report its error, as pgx's
// do.
func (x *session) sendBatch(ctx context.Context, b *pgx.Batch) *batchResults {
	br := &batchResults{ctx: ctx, x: x, b: b}
	if len(b.QueuedQueries) == 0 {
		return br
	}
	if pgx.FailedBatchResults(b, nil).Tx() != nil {
		// pgx.Batch.BeginTx: a transaction begun by the batch, whose Tx
		// the results return. Its BEGIN is the first queued query.
		br.tx = &Tx{x: x, tx: nil, closed: true}
	}
	implicit := br.tx == nil && len(b.QueuedQueries) > 1 && x.conn.PgConn().TxStatus() == 'I' && !beginsTx(b.QueuedQueries[0].SQL)
	var tx pgx.Tx
	if implicit {
		var err error
		if tx, err = x.begin(ctx, pgx.TxOptions{}); err != nil {
			br.failed, br.err = err, err
			return br
		}
	}
	br.results = make([]batchResult, len(b.QueuedQueries))
	for i, qq := range b.QueuedQueries {
		res := &br.results[i]
		if br.failed != nil {
			res.err = br.failed
			continue
		}
		rows, err := x.query(ctx, qq.SQL, qq.Arguments, true)
		if err == nil {
			res.rows = readRows(rows)
			err = res.rows.err
		}
		if err != nil {
			res.err, br.failed = err, err
		}
		if i == 0 && br.tx != nil && err == nil {
			br.tx = &Tx{x: x, tx: &batchTx{conn: x.conn}}
		}
	}
	if implicit {
		var err error
		if br.failed != nil {
			err = x.rollback(ctx, tx)
		} else {
			err = x.commit(ctx, tx)
		}
		if err != nil && br.failed == nil {
			last := &br.results[len(br.results)-1]
			last.err, last.rows, br.failed = err, nil, err
		}
	}
	return br
}

// beginsTx reports whether sql begins a transaction block.
func beginsTx(sql string) bool {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return false
	}
	w := strings.ToUpper(strings.TrimRight(f[0], ";"))
	return w == "BEGIN" || w == "START"
}

// batchResult is one queued statement's result, read.
type batchResult struct {
	rows *bufRows
	err  error
}

// batchResults are a batch's results, as pgx.BatchResults.
type batchResults struct {
	ctx     context.Context
	x       *session
	b       *pgx.Batch
	results []batchResult
	next    int
	failed  error // the first statement's error, which the statements after it report too
	err     error // the first error the program read, or a callback's: what Close returns
	tx      *Tx   // the transaction the batch began (pgx.Batch.BeginTx), or nil
	release func()
	closed  bool
}

var _ pgx.BatchResults = (*batchResults)(nil)

var errNoMoreResults = errors.New("no more results in batch")

// take returns the next statement's result.
func (br *batchResults) take() (*batchResult, error) {
	if br.closed {
		return nil, errors.New("batch already closed")
	}
	if br.results == nil && br.failed != nil {
		return nil, br.failed
	}
	if br.next >= len(br.results) {
		return nil, errNoMoreResults
	}
	r := &br.results[br.next]
	br.next++
	if r.err != nil && br.err == nil {
		br.err = r.err
	}
	return r, nil
}

func (br *batchResults) Exec() (pgconn.CommandTag, error) {
	r, err := br.take()
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	if r.err != nil {
		return pgconn.CommandTag{}, r.err
	}
	return r.rows.tag, nil
}

func (br *batchResults) Query() (pgx.Rows, error) {
	r, err := br.take()
	if err != nil {
		return errRows(err), err
	}
	if r.err != nil {
		return errRows(r.err), r.err
	}
	return r.rows, nil
}

func (br *batchResults) QueryRow() pgx.Row {
	rows, err := br.Query()
	return &row{rows: rows, err: err}
}

// Close reads the results not read yet, calling their queued queries'
// callbacks, as pgx's Close: the first error the program read, or that a
// statement or a callback gives meanwhile, stops the callbacks and is
// returned, also by later calls.
func (br *batchResults) Close() error {
	if br.err != nil || br.closed {
		br.end()
		return br.err
	}
	for br.err == nil && br.next < len(br.results) {
		if qq := br.b.QueuedQueries[br.next]; qq.Fn != nil {
			if err := qq.Fn(br); err != nil && br.err == nil {
				br.err = err
			}
		} else {
			br.Exec()
		}
	}
	br.closed = true
	br.end()
	return br.err
}

// end gives a pool's connection back.
func (br *batchResults) end() {
	if br.release != nil {
		br.release()
		br.release = nil
	}
}

// Tx returns the transaction the batch began with pgx.Batch.BeginTx, or
// nil.
func (br *batchResults) Tx() pgx.Tx {
	if br.tx == nil {
		return nil
	}
	return br.tx
}

// batchTx is the pgx.Tx of a transaction a batch began with its own
// BEGIN (pgx.Batch.BeginTx): COMMIT and ROLLBACK go as statements.
type batchTx struct {
	pgx.Tx
	conn *pgx.Conn
}

func (t *batchTx) Commit(ctx context.Context) error {
	tag, err := t.conn.Exec(ctx, "commit")
	if err == nil && tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return err
}

func (t *batchTx) Rollback(ctx context.Context) error {
	_, err := t.conn.Exec(ctx, "rollback")
	return err
}
