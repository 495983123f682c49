package pgxseq

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/seqshim/seqshim/internal/engine"
)

// sendBatch runs the statements queued in b, each planned and drawn for
// as the same statement sent alone, and keeps their results for the
// program to read (Exec, Query, QueryRow, or the queued queries' callbacks
// at Close). pgx sends a batch as one implicit transaction when no
// transaction block is open, and so does this:
//
//   - A batch of plain statements (engine.Session.Pipelinable: INSERTs,
//     UPDATEs, queries, with or without sequence calls, but no DDL, no
//     transaction control) outside a transaction block goes as pgx sends
//     it, in one round trip: each statement's sequence work is done first,
//     in order, then the batch is sent with the values bound.
//   - Any other batch of several statements runs one statement after
//     another, inside a transaction block of its own (the sequence DDL in
//     it reaches the store only if it commits), unless the batch begins
//     one itself (pgx.Batch.BeginTx, or a BEGIN first), or a transaction
//     block is open.
//
// After a failed statement the rest do not run and report its error, as
// pgx's do.
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
	// Every queued query taken apart once, as pgx does before it sends
	// any: a QueryRewriter that fails fails the batch.
	calls := make([]call, len(b.QueuedQueries))
	for i, qq := range b.QueuedQueries {
		c, err := x.parse(ctx, qq.SQL, qq.Arguments, batchCall)
		if err != nil {
			br.failed, br.err = err, err
			return br
		}
		c.opts = nil // x.opts is reused by the next parse
		calls[i] = c
	}
	implicit := br.tx == nil && len(calls) > 1 && x.conn.PgConn().TxStatus() == 'I' && !beginsTx(calls[0].text)
	if implicit && x.pipelinable(ctx, calls) {
		x.pipeline(ctx, calls, br)
		return br
	}
	var tx pgx.Tx
	if implicit {
		var err error
		if tx, err = x.begin(ctx, pgx.TxOptions{}); err != nil {
			br.failed, br.err = err, err
			return br
		}
	}
	br.results = make([]batchResult, len(calls))
	for i := range calls {
		res := &br.results[i]
		if br.failed != nil {
			res.err = br.failed
			continue
		}
		rows, err := x.queryCall(ctx, &calls[i], true)
		if err == nil {
			res.rows = readRows(rows)
			err = res.rows.err
		}
		if err != nil {
			res.err, br.failed = err, err
			if parseTime(err) && br.tx == nil {
				// PostgreSQL would have failed the batch before running
				// any of it: the statements before report it too (their
				// work is rolled back with the transaction it aborted).
				for j := range i {
					br.results[j] = batchResult{err: err}
				}
			}
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

// pipelinable reports whether every one of a batch's calls is plain
// (engine.Session.Pipelinable).
func (x *session) pipelinable(ctx context.Context, calls []call) bool {
	for i := range calls {
		if !x.s.Pipelinable(ctx, calls[i].text) {
			return false
		}
	}
	return true
}

// pipeline runs the sequence work of calls, a batch's plain statements,
// in order, then sends them as one pgx batch, and finishes each with its
// answer. A statement whose sequence work fails is sent as a statement
// failing with its error: the database answers the statements before it,
// then rolls the implicit transaction back, as it would have.
func (x *session) pipeline(ctx context.Context, calls []call, br *batchResults) {
	type run struct {
		step  engine.Step
		local *bufRows // the answer Run gave, for a statement answered in process
	}
	runs := make([]run, 0, len(calls))
	pb := &pgx.Batch{}
	var runErr error
	for i := range calls {
		c := &calls[i]
		step, err := x.s.Run(ctx, c.text, engine.AnyArgs(c.args), c.request(true))
		if err == nil && step.SQL == "" {
			runs = append(runs, run{local: readRows(x.localRows(step.Rows, localTag(&step), true))})
			continue
		}
		if err == nil && step.Rows != nil {
			// Not as Pipelinable promised: a bug of seqshim's.
			err = fmt.Errorf("seqshim: a batch statement was answered in part in process: %q", c.text)
		}
		if err != nil {
			if parseTime(err) {
				// An error PostgreSQL raises parsing one statement of a
				// batch fails them all, and none runs (pgx reports it for
				// each, in every query mode).
				br.fail(len(calls), err)
				return
			}
			runErr = err
			pb.Queue(engine.AbortSQL(err))
			break
		}
		args := make([]any, 0, len(c.args)+len(step.Values))
		args = append(args, c.args...)
		if step.Bound {
			vals := make([]bound, len(step.Values)) // Values are the session's until its next Run
			for j, v := range step.Values {
				vals[j] = bound(v)
				args = append(args, &vals[j])
			}
		}
		pb.Queue(x.sendSQL(c, &step), args...)
		runs = append(runs, run{step: step})
	}
	res := x.conn.SendBatch(ctx, pb)
	br.results = make([]batchResult, len(calls))
	for i := range br.results {
		r := &br.results[i]
		prior := br.failed // once a statement failed, the rest report its error
		switch {
		case i < len(runs) && runs[i].local != nil:
			r.rows = runs[i].local
		case i < len(runs):
			// Read and finished even after a failure: the session learns
			// what the database did with each statement Run gave it.
			rows, err := res.Query()
			if err == nil {
				r.rows = readRows(rows)
				err = r.rows.err
			}
			r.err = x.s.Finish(ctx, &runs[i].step, err)
		case i == len(runs) && runErr != nil: // the statement whose sequence work failed
			res.Exec()
			r.err = runErr
		}
		if prior != nil {
			r.rows, r.err = nil, prior
		} else if r.err != nil {
			br.failed = r.err
		}
	}
	if err := res.Close(); err != nil && br.failed == nil {
		// The implicit transaction's commit failed (a deferred constraint).
		last := &br.results[len(br.results)-1]
		last.err, last.rows, br.failed = err, nil, err
	}
}

// fail makes every one of n statements report err, none having run.
func (br *batchResults) fail(n int, err error) {
	br.results = make([]batchResult, n)
	for i := range br.results {
		br.results[i].err = err
	}
	br.failed = err
}

// parseTime reports whether err, of a statement's sequence work, is one
// PostgreSQL raises when it parses the statement, before anything runs: a
// syntax error, a relation or schema that does not exist or is not a
// sequence, a name too long; or seqshim's refusal of the statement.
func parseTime(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "42601", "42P01", "42809", "3F000", "42602", "0A000":
		return true
	}
	return false
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
