package pgxseq

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/seqshim/seqshim/internal/engine"
)

// session is one database connection and its engine session: every
// statement of the wrappers on that connection (Pool, PoolConn, Conn, Tx)
// goes through it. Like a *pgx.Conn, it is used by one goroutine at a
// time.
type session struct {
	conn *pgx.Conn
	s    *engine.Session[engine.AnyArgs]
	mode pgx.QueryExecMode // the connection's default (Config copies the whole configuration)

	// prepared are the statements prepared through the wrapper, by name:
	// their text, and whether the database has them prepared (a text the
	// engine rewrites at each execution is not).
	prepared map[string]preparedStmt

	// An INSERT leaving its id to a store default reads the fields above
	// and these two (argBuf's first few): two of the session's cache
	// lines; then the statements it is sent with.
	vals   [4]bound // bound call values, passed by pointer: no allocation
	argBuf [16]any  // the arguments of a rewritten statement, when they fit
	direct directStmts

	// QueryRow's answer, scanned before the session's next statement, and
	// rows answered here that the session reads itself (QueryRow,
	// batches), before they are read into ownRows. With the first fields,
	// they are what QueryRow of a statement answered here reads of the
	// session.
	ownRow  row
	ownLazy lazyRows

	opts     [4]any     // a call's result formats options
	rowsSlab []bufRows  // rows answered here, to hand out: see localRows
	ownRows  bufRows    // ownLazy's rows, once read
	poolSlab []poolRows // a pool's rows wrappers, to hand out: see poolRows
}

type preparedStmt struct {
	sql string
	db  bool
}

// newSession makes the engine session of conn (one catalog query).
func newSession(ctx context.Context, eng *engine.Engine, conn *pgx.Conn) (*session, error) {
	s, err := engine.NewSession[engine.AnyArgs](ctx, eng, engine.PgConn(conn.PgConn()))
	if err != nil {
		return nil, err
	}
	config := conn.Config()
	x := &session{conn: conn, s: s, mode: config.DefaultQueryExecMode}
	x.direct.init(config)
	return x, nil
}

// isPrepared reports whether sql names a statement prepared through the
// wrapper.
func (x *session) isPrepared(sql string) bool {
	if len(x.prepared) == 0 {
		return false // without a map lookup: the common case
	}
	_, ok := x.prepared[sql]
	return ok
}

// call is one call's leading options, taken apart as pgx takes them.
type call struct {
	sql      string
	args     []any // the SQL parameters
	opts     []any // the leading options to pass on but the exec mode (a Query's result formats), in x.opts
	mode     pgx.QueryExecMode
	prepared bool   // sql names a statement prepared through the wrapper
	text     string // the text the engine plans: sql, or the prepared statement's
}

// The kinds of call parse takes apart, each with pgx's leading options:
// Exec's (QueryExecMode, QueryRewriter), Query's (also the result
// formats), a batch's queued query's (a QueryRewriter only).
const (
	execCall = iota
	queryCall
	batchCall
)

// parse takes the leading options off args, as pgx takes those of a call
// of kind, and applies a QueryRewriter (pgx.NamedArgs,
// pgx.StrictNamedArgs, or the program's own).
func (x *session) parse(ctx context.Context, sql string, args []any, kind int) (c call, err error) {
	c.mode = x.mode
	c.opts = x.opts[:0]
	var rewriter pgx.QueryRewriter
loop:
	for len(args) > 0 {
		switch a := args[0].(type) {
		case pgx.QueryExecMode:
			if kind == batchCall {
				break loop
			}
			c.mode = a
		case pgx.QueryResultFormats, pgx.QueryResultFormatsByOID:
			if kind != queryCall {
				break loop
			}
			c.opts = append(c.opts, a)
		case pgx.QueryRewriter:
			rewriter = a
		default:
			break loop
		}
		args = args[1:]
	}
	if rewriter != nil {
		if sql, args, err = rewriter.RewriteQuery(ctx, x.conn, sql, args); err != nil {
			return c, fmt.Errorf("rewrite query failed: %w", err)
		}
	}
	c.sql, c.args, c.text = sql, args, sql
	if p, ok := x.prepared[sql]; ok {
		c.text, c.prepared = p.sql, true
	}
	return c, nil
}

// request is how pgx sends c: the simple protocol for QueryExecModeSimpleProtocol,
// and for an Exec without arguments; a prepared statement by the extended
// one.
func (c *call) request(rows bool) engine.Request {
	ext := c.prepared || c.mode != pgx.QueryExecModeSimpleProtocol && (rows || len(c.args) > 0)
	return engine.Request{Rows: rows, Extended: ext}
}

// dbArgs are the arguments to send with the text step says: c's options
// (its exec mode; for a query, the result formats too), its arguments,
// then the bound call values.
func (x *session) dbArgs(c *call, step *engine.Step, query bool) ([]any, error) {
	n := 1 + len(c.opts) + len(c.args)
	if step.Bound {
		if len(c.args) != step.NumParams() {
			return nil, fmt.Errorf("seqshim: the statement has %d parameters but %d arguments were given", step.NumParams(), len(c.args))
		}
		n += len(step.Values)
	}
	out := x.argBuf[:0]
	if n > len(x.argBuf) {
		out = make([]any, 0, n)
	}
	out = append(out, c.mode)
	if query {
		out = append(out, c.opts...) // result formats: a Query's only
	}
	out = append(out, c.args...)
	if step.Bound {
		out = x.appendBound(out, step.Values)
	}
	return out, nil
}

// appendBound appends call values bound as parameters to out, in the
// session's buffer when they fit.
func (x *session) appendBound(out []any, values []int64) []any {
	vals := x.vals[:]
	if len(values) > len(vals) {
		vals = make([]bound, len(values))
	}
	for i, v := range values {
		vals[i] = bound(v)
		out = append(out, &vals[i])
	}
	return out
}

// boundArgs are the arguments to send with the text step says when the
// engine rewrote it with its call values bound and the caller passed args
// and no option (the hot paths of exec and query): the connection's exec
// mode, args, then the values, in the session's buffers: what dbArgs
// makes of them, without taking the call apart. ok is false when they do
// not fit there, when args do not match the statement's parameters
// (dbArgs says so) or when step is not such a text.
func (x *session) boundArgs(args []any, step *engine.Step) (out []any, ok bool) {
	if !step.Bound || step.AsIs || len(args) != step.NumParams() || 1+len(args)+len(step.Values) > len(x.argBuf) {
		return nil, false
	}
	out = append(x.argBuf[:0], x.mode)
	out = append(out, args...)
	return x.appendBound(out, step.Values), true
}

// bound is a call value bound as a parameter. pgx encodes it through
// pgtype.Int64Valuer, which neither boxes the value nor dereferences a
// pointer by reflection, as it would an *int64.
type bound int64

// Int64Value returns the value, for pgx's int8 encoding.
func (b *bound) Int64Value() (pgtype.Int8, error) {
	return pgtype.Int8{Int64: int64(*b), Valid: true}, nil
}

// sendSQL is the text to send for step: the statement's name when it goes
// as it is and the database has it prepared, else the text.
func (x *session) sendSQL(c *call, step *engine.Step) string {
	if !step.AsIs {
		return step.SQL
	}
	if c.prepared && !x.prepared[c.sql].db {
		return c.text
	}
	return c.sql
}

// exec is Exec on the session.
func (x *session) exec(ctx context.Context, sql string, args []any) (pgconn.CommandTag, error) {
	if len(args) == 0 || !isOption(args[0]) {
		// The common case: no options, and perhaps the hot path, which
		// sends the caller's own arguments.
		if !x.isPrepared(sql) {
			step, err := x.s.Run(ctx, sql, engine.AnyArgs(args), engine.Request{Extended: len(args) > 0 && x.mode != pgx.QueryExecModeSimpleProtocol})
			if err != nil {
				return pgconn.CommandTag{}, err
			}
			if step.AsIs {
				tag, err := x.conn.Exec(ctx, sql, args...)
				if err = x.s.Finish(ctx, &step, err); err != nil {
					return pgconn.CommandTag{}, err
				}
				return tag, nil
			}
			if out, ok := x.boundArgs(args, &step); ok {
				// The other hot path: an INSERT leaving its id to a store
				// default.
				tag, err := x.execBound(ctx, step.SQL, out)
				clear(out)
				return x.execDone(ctx, &step, tag, err)
			}
			c := call{sql: sql, args: args, text: sql, mode: x.mode, opts: x.opts[:0]}
			return x.execStep(ctx, &c, &step)
		}
	}
	c, err := x.parse(ctx, sql, args, execCall)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	step, err := x.s.Run(ctx, c.text, engine.AnyArgs(c.args), c.request(false))
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return x.execStep(ctx, &c, &step)
}

// execStep sends what Run said for an Exec and finishes the step.
func (x *session) execStep(ctx context.Context, c *call, step *engine.Step) (pgconn.CommandTag, error) {
	if step.SQL == "" {
		return pgconn.NewCommandTag(step.Tag()), nil
	}
	args, err := x.dbArgs(c, step, false)
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = x.conn.Exec(ctx, x.sendSQL(c, step), args...)
	}
	clear(args)
	return x.execDone(ctx, step, tag, err)
}

// execDone finishes an Exec's step after the database answered tag, err.
func (x *session) execDone(ctx context.Context, step *engine.Step, tag pgconn.CommandTag, err error) (pgconn.CommandTag, error) {
	if err = x.s.Finish(ctx, step, err); err != nil {
		return pgconn.CommandTag{}, err
	}
	if step.Affected {
		tag = pgconn.NewCommandTag(step.Tag())
	}
	return tag, nil
}

// query is Query on the session. The rows it returns are the database's
// own when it answered (no allocation of the wrapper's), or the rows
// answered here: own says they are read before the session's next
// statement, and then they are the session's own, reused.
func (x *session) query(ctx context.Context, sql string, args []any, own bool) (pgx.Rows, error) {
	if len(args) == 0 || !isOption(args[0]) {
		if !x.isPrepared(sql) {
			step, err := x.s.Run(ctx, sql, engine.AnyArgs(args), engine.Request{Rows: true, Extended: x.mode != pgx.QueryExecModeSimpleProtocol})
			if err != nil {
				return errRows(err), err
			}
			if step.AsIs {
				rows, err := x.conn.Query(ctx, sql, args...)
				if err = x.s.Finish(ctx, &step, err); err != nil {
					rows.Close()
					return errRows(err), err
				}
				return rows, nil
			}
			if step.SQL == "" {
				return x.answered(&step, own), nil
			}
			if step.Rows == nil {
				if out, ok := x.boundArgs(args, &step); ok {
					// INSERT … RETURNING leaving its id to a store default.
					rows, err := x.conn.Query(ctx, step.SQL, out...)
					clear(out)
					return x.queryDone(ctx, &step, rows, err)
				}
			}
			c := call{sql: sql, args: args, text: sql, mode: x.mode, opts: x.opts[:0]}
			return x.queryStep(ctx, &c, &step, own)
		}
	}
	c, err := x.parse(ctx, sql, args, queryCall)
	if err != nil {
		return errRows(err), err
	}
	return x.queryCall(ctx, &c, own)
}

// queryCall is Query of a call taken apart.
func (x *session) queryCall(ctx context.Context, c *call, own bool) (pgx.Rows, error) {
	step, err := x.s.Run(ctx, c.text, engine.AnyArgs(c.args), c.request(true))
	if err != nil {
		return errRows(err), err
	}
	return x.queryStep(ctx, c, &step, own)
}

// queryStep sends what Run said for a Query and finishes the step.
func (x *session) queryStep(ctx context.Context, c *call, step *engine.Step, own bool) (pgx.Rows, error) {
	if step.SQL == "" {
		return x.answered(step, own), nil
	}
	args, err := x.dbArgs(c, step, step.Rows == nil)
	var rows pgx.Rows
	if err == nil {
		if step.Rows != nil {
			// The first statement was answered here; the text is sent as
			// a command.
			_, err = x.conn.Exec(ctx, x.sendSQL(c, step), args...)
		} else {
			rows, err = x.conn.Query(ctx, x.sendSQL(c, step), args...)
		}
	}
	clear(args)
	if step.Rows != nil {
		if err = x.s.Finish(ctx, step, err); err != nil {
			return errRows(err), err
		}
		return x.localRows(step.Rows, selectTag(step.Rows.NumRows()), own), nil
	}
	return x.queryDone(ctx, step, rows, err)
}

// queryDone finishes a Query's step whose rows are the database's, after
// it answered rows, err.
func (x *session) queryDone(ctx context.Context, step *engine.Step, rows pgx.Rows, err error) (pgx.Rows, error) {
	if err = x.s.Finish(ctx, step, err); err != nil {
		if rows != nil {
			rows.Close()
		}
		return errRows(err), err
	}
	return rows, nil
}

// answered are the rows of a Query answered here, step having nothing to
// send.
func (x *session) answered(step *engine.Step, own bool) pgx.Rows {
	if own {
		l := &x.ownLazy
		l.x, l.r, l.tag, l.b, l.closed = x, step.Rows, localTag(step), nil, false // not *l = lazyRows{…}: see engine's newRows
		return l
	}
	return x.localRows(step.Rows, localTag(step), own)
}

// isOption reports whether a is one of pgx's leading query options.
func isOption(a any) bool {
	switch a.(type) {
	case pgx.QueryExecMode, pgx.QueryResultFormats, pgx.QueryResultFormatsByOID, pgx.QueryRewriter:
		return true
	}
	return false
}

// prepare is Prepare on the session: the engine reads the text once, and
// when it may go to the database as it is, the database prepares it under
// name too (pgx's own Prepare). Executing name afterwards runs the text
// through the engine.
func (x *session) prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if p, ok := x.prepared[name]; ok && p.sql == sql {
		return x.description(name, sql, p.db), nil // idempotent, as pgx's Prepare
	}
	var sd *pgconn.StatementDescription
	_, err := x.s.Prepare(ctx, sql, func(ctx context.Context) error {
		var err error
		sd, err = x.conn.Prepare(ctx, name, sql)
		return err
	})
	if err != nil {
		return nil, err
	}
	if x.prepared == nil {
		x.prepared = map[string]preparedStmt{}
	}
	x.prepared[name] = preparedStmt{sql: sql, db: sd != nil}
	if sd == nil {
		sd = &pgconn.StatementDescription{Name: name, SQL: sql}
	}
	return sd, nil
}

// description is the description of a statement prepared before.
func (x *session) description(name, sql string, db bool) *pgconn.StatementDescription {
	if db {
		if sd, err := x.conn.Prepare(context.Background(), name, sql); err == nil {
			return sd // pgx's, from its map: no round trip
		}
	}
	return &pgconn.StatementDescription{Name: name, SQL: sql}
}

// deallocate is Deallocate on the session.
func (x *session) deallocate(ctx context.Context, name string) error {
	p, ok := x.prepared[name]
	delete(x.prepared, name)
	if ok && !p.db {
		return nil
	}
	return x.conn.Deallocate(ctx, name)
}

// deallocateAll is DeallocateAll on the session.
func (x *session) deallocateAll(ctx context.Context) error {
	clear(x.prepared)
	x.forgetDirect()
	return x.conn.DeallocateAll(ctx)
}

// begin begins a transaction block with txOptions, as pgx's BeginTx: the
// engine learns of it first, so that sequence DDL inside it is held for
// its COMMIT.
func (x *session) begin(ctx context.Context, txOptions pgx.TxOptions) (pgx.Tx, error) {
	x.s.Begin(txOptions.AccessMode == pgx.ReadOnly)
	tx, err := x.conn.BeginTx(ctx, txOptions)
	if err != nil {
		return nil, x.s.DatabaseError(ctx, err)
	}
	return tx, nil
}

// commit ends tx, begun by begin, with the engine's commit protocol: the
// sequence DDL it holds reaches the store first.
func (x *session) commit(ctx context.Context, tx pgx.Tx) error {
	return x.s.Commit(ctx, tx.Commit, tx.Rollback)
}

// rollback rolls tx back.
func (x *session) rollback(ctx context.Context, tx pgx.Tx) error {
	return x.s.Rollback(ctx, tx.Rollback)
}

// localTag is the command tag of a Query answered here.
func localTag(step *engine.Step) string {
	if step.Rows == nil || len(step.Rows.Columns()) == 0 {
		return step.Tag() // a command: CREATE SEQUENCE, COMMIT, …
	}
	return selectTag(step.Rows.NumRows())
}

// selectTag is the tag of a query answered here with n rows.
func selectTag(n int) string {
	if n == 1 {
		return "SELECT 1" // the common case, without an allocation
	}
	return "SELECT " + strconv.Itoa(n)
}
