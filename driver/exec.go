package driver

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// numOptions counts pgx's leading option arguments (pgx.QueryExecMode,
// pgx.QueryResultFormats, …): pgx's NamedValueChecker lets them through
// database/sql, and they are not SQL parameters.
func numOptions(args []driver.NamedValue) int {
	n := 0
	for n < len(args) {
		switch args[n].Value.(type) {
		case pgx.QueryExecMode, pgx.QueryResultFormats, pgx.QueryResultFormatsByOID, pgx.QueryRewriter:
			n++
		default:
			return n
		}
	}
	return n
}

// evaluation is the outcome of running a plan's sequence work, in statement
// order, before anything is sent to the database.
type evaluation struct {
	values []int64    // values of the Rewrite call sites, in plan order
	first  *localRows // the first statement's rows, when it is Local
	db     bool       // some statement goes to the database
	rows   int64      // rows of the Local statements (an Exec's result)
}

// execPlan applies a plan that is not pure pass-through, for ExecContext.
func (c *conn) execPlan(ctx context.Context, query string, cp *connPlan, args []driver.NamedValue) (driver.Result, error) {
	pl := cp.plan
	if passThrough(pl) {
		res, err := c.innerExec(ctx, query, args)
		if err == nil {
			c.afterStatements(pl)
		}
		return res, err
	}
	if err := c.txFailed(); err != nil {
		return nil, err
	}
	nopt := numOptions(args)
	ev, err := c.evaluate(ctx, pl, args[nopt:])
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	if !ev.db {
		return driver.RowsAffected(ev.rows), nil
	}
	sql, dbArgs, err := c.render(cp, args, nopt, ev.values, c.argBuf)
	if err != nil {
		return nil, err
	}
	res, err := c.innerExec(ctx, sql, dbArgs)
	if err == nil {
		c.afterStatements(pl)
	}
	// The inner driver is done with the arguments when Exec returns: keep
	// the slice for the next statement, without the caller's values.
	if len(dbArgs) > len(args) {
		clear(dbArgs)
		c.argBuf = dbArgs[:0]
	}
	return res, err
}

// queryPlan applies a plan that is not pure pass-through, for QueryContext.
// The rows are those of the first statement, as with pgx.
func (c *conn) queryPlan(ctx context.Context, query string, cp *connPlan, args []driver.NamedValue) (driver.Rows, error) {
	pl := cp.plan
	if passThrough(pl) {
		rows, err := c.innerQuery(ctx, query, args)
		if err == nil {
			c.afterStatements(pl)
		}
		return rows, err
	}
	if err := c.txFailed(); err != nil {
		return nil, err
	}
	nopt := numOptions(args)
	ev, err := c.evaluate(ctx, pl, args[nopt:])
	if err != nil {
		return nil, c.fail(ctx, err)
	}
	if !ev.db {
		if ev.first != nil {
			return ev.first, nil
		}
		return &localRows{}, nil
	}
	// A fresh slice of arguments: rows may still read them after Query
	// returns.
	sql, dbArgs, err := c.render(cp, args, nopt, ev.values, nil)
	if err != nil {
		return nil, err
	}
	if ev.first != nil {
		// The first result is answered here; the rest still has to run.
		if _, err := c.innerExec(ctx, sql, dbArgs); err != nil {
			return nil, err
		}
		c.afterStatements(pl)
		return ev.first, nil
	}
	rows, err := c.innerQuery(ctx, sql, dbArgs)
	if err == nil {
		c.afterStatements(pl)
	}
	return rows, err
}

// evaluate does a plan's sequence work in statement order: draws the values
// of call sites, answers Local statements and applies sequence DDL.
func (c *conn) evaluate(ctx context.Context, pl *rewrite.Plan, user []driver.NamedValue) (evaluation, error) {
	var ev evaluation
	if pl.Err != nil {
		return ev, pl.Err
	}
	if n := pl.NumCalls(); n > len(c.scratch) {
		ev.values = make([]int64, 0, n)
	} else {
		ev.values = c.scratch[:0] // used before the call returns, never kept
	}
	for i := range pl.Statements {
		s := &pl.Statements[i]
		switch s.Kind {
		case rewrite.PassThrough:
			ev.db = true
		case rewrite.Rewrite:
			ev.db = true
			for j := range s.Calls {
				v, _, err := c.call(ctx, &s.Calls[j], user)
				if err != nil {
					return ev, err
				}
				ev.values = append(ev.values, v)
			}
		case rewrite.Local:
			rows, err := c.local(ctx, s, user)
			if err != nil {
				return ev, err
			}
			ev.rows += int64(rows.numRows())
			if i == 0 {
				ev.first = rows
			}
		case rewrite.SequenceDDL:
			if err := c.ddl(ctx, s.DDL); err != nil {
				return ev, err
			}
			if c.c.opts.DDL == DDLBoth {
				ev.db = true
			}
		case rewrite.Reject:
			return ev, s.Err
		default:
			return ev, fmt.Errorf("seqshim: unknown statement kind %v", s.Kind)
		}
	}
	return ev, nil
}

// render builds the SQL of the statements that go to the database, and its
// arguments: the caller's, plus the call values when they are bound as
// parameters rather than inlined, in buf when it has room.
func (c *conn) render(cp *connPlan, args []driver.NamedValue, nopt int, values []int64, buf []driver.NamedValue) (string, []driver.NamedValue, error) {
	pl, sql := cp.plan, cp.bound
	if sql == "" {
		var bind bool
		sql, bind = c.renderText(pl, values)
		if !bind {
			return sql, args, nil
		}
		cp.bound = sql // with bound values the text depends on the plan only
	}
	if got := len(args) - nopt; got != pl.NumParams {
		return "", nil, fmt.Errorf("seqshim: the statement has %d parameters but %d arguments were given", pl.NumParams, got)
	}
	n := len(args) + len(values)
	if cap(buf) < n {
		buf = make([]driver.NamedValue, n)
	}
	dbArgs := buf[:n]
	copy(dbArgs, args)
	v := 0
	for i := range pl.Statements {
		s := &pl.Statements[i]
		if s.Kind != rewrite.Rewrite {
			continue
		}
		for j := range s.Calls {
			k := nopt + s.ParamNumber(j) - 1
			if k < len(args) || k >= len(dbArgs) {
				return "", nil, fmt.Errorf("seqshim: internal error: parameter $%d of a rewritten call out of range", s.ParamNumber(j))
			}
			dbArgs[k] = driver.NamedValue{Ordinal: k - nopt + 1, Value: values[v]}
			v++
		}
	}
	return sql, dbArgs, nil
}

// renderText renders the statements that go to the database and reports
// whether the values are bound as parameters (then the text does not depend
// on them) rather than inlined.
func (c *conn) renderText(pl *rewrite.Plan, values []int64) (string, bool) {
	size := 0
	for i := range pl.Statements {
		size += len(pl.Statements[i].Text) + 1
	}
	buf := make([]byte, 0, size+24*len(values))
	n, v, bind := 0, 0, false
	for i := range pl.Statements {
		s := &pl.Statements[i]
		switch {
		case s.Kind == rewrite.PassThrough, s.Kind == rewrite.Rewrite:
		case s.Kind == rewrite.SequenceDDL && c.c.opts.DDL == DDLBoth:
		default:
			continue
		}
		if n > 0 {
			buf = append(buf, ';')
		}
		n++
		if s.Kind != rewrite.Rewrite {
			buf = append(buf, s.Text...)
			continue
		}
		k := len(s.Calls)
		buf = s.AppendSQL(buf, values[v:v+k])
		if k > 0 && s.ParamNumber(0) > 0 {
			bind = true
		}
		v += k
	}
	return string(buf), bind
}

// afterStatements updates the session after a plan's statements ran in the
// database.
func (c *conn) afterStatements(pl *rewrite.Plan) {
	for i := range pl.Statements {
		if s := &pl.Statements[i]; s.Kind == rewrite.PassThrough {
			c.afterPassThrough(s.Text)
		}
	}
}

// call evaluates one sequence call. null is true when PostgreSQL would
// return NULL (a NULL argument to these strict functions).
func (c *conn) call(ctx context.Context, call *rewrite.Call, user []driver.NamedValue) (v int64, null bool, err error) {
	name := call.Name
	if call.NameArg >= 0 {
		text, null, err := argText(user, call.NameArg)
		if err != nil || null {
			return 0, null, err
		}
		if name, err = sequence.ParseName(text); err != nil {
			return 0, false, err
		}
	}
	switch call.Func {
	case rewrite.Nextval:
		v, err = c.handle(name).Next(ctx)
		if err != nil {
			return 0, false, c.storeErr(err)
		}
		c.sess.nextval(name, v)
		return v, false, nil
	case rewrite.Currval:
		if v, ok := c.sess.currval(name); ok {
			return v, false, nil
		}
		// PostgreSQL looks the relation up first: a missing one is 42P01.
		if _, err := c.seq.store.Describe(ctx, name); err != nil {
			return 0, false, c.storeErr(err)
		}
		return 0, false, sequence.CurrvalNotDefinedError(name)
	case rewrite.Lastval:
		if v, ok := c.sess.lastval(); ok {
			return v, false, nil
		}
		return 0, false, sequence.LastvalNotDefinedError()
	case rewrite.Setval:
		val, null, err := operand(user, call.Value)
		if err != nil || null {
			return 0, null, err
		}
		isCalled, null, err := operand(user, call.IsCalled)
		if err != nil || null {
			return 0, null, err
		}
		err = c.seq.cache.Change(ctx, name, func(ctx context.Context) error {
			_, err := c.seq.store.SetVal(ctx, name, val, isCalled != 0)
			return err
		})
		if err != nil {
			return 0, false, c.storeErr(err)
		}
		if isCalled != 0 {
			c.sess.set(name, val)
		}
		return val, false, nil
	}
	return 0, false, fmt.Errorf("seqshim: unknown sequence function %v", call.Func)
}

// handle returns the cache handle of sequence name, remembering the last
// one: statements drawing from one sequence skip the cache's name lookup.
func (c *conn) handle(name string) *seqcache.Handle {
	if h := c.lastHandle; h != nil && h.Name() == name {
		return h
	}
	h := c.seq.cache.Handle(name)
	c.lastHandle = h
	return h
}

// storeErr labels an error that is not PostgreSQL's own as the store's.
func (c *conn) storeErr(err error) error {
	var se *sequence.Error
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("seqshim: sequence store: %w", err)
}

// local answers a Local statement: one row, or one per generate_series
// value, each evaluating the calls in order.
func (c *conn) local(ctx context.Context, s *rewrite.Statement, user []driver.NamedValue) (*localRows, error) {
	n := int64(1)
	if s.Series != nil {
		start, null1, err := operand(user, s.Series.Start)
		if err != nil {
			return nil, err
		}
		end, null2, err := operand(user, s.Series.End)
		if err != nil {
			return nil, err
		}
		if null1 || null2 {
			n = 0 // generate_series(NULL, …) has no rows
		} else {
			n = s.Series.Rows(start, end)
		}
	}
	cols := len(s.Calls)
	r := &localRows{columns: s.Columns, typeName: c.intTypeName()}
	if size := n * int64(cols); size <= int64(len(r.small)) {
		r.values = r.small[:0] // the common single row: one allocation less
	} else {
		r.values = make([]driver.Value, 0, min(n, 1024)*int64(cols))
	}
	for i := range n {
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, err // a long series stops when the caller gives up
			}
		}
		for j := range s.Calls {
			v, null, err := c.call(ctx, &s.Calls[j], user)
			if err != nil {
				return nil, err
			}
			if null {
				r.values = append(r.values, nil)
			} else {
				r.values = append(r.values, v)
			}
		}
	}
	return r, nil
}

// intTypeName is the database type name of a sequence function's result.
func (c *conn) intTypeName() string {
	if c.c.dialect == rewrite.Postgres {
		return "INT8" // what pgx reports for bigint
	}
	return "BIGINT"
}

// ddl applies a sequence DDL statement to the store and keeps this
// process's cache and session in step with it.
func (c *conn) ddl(ctx context.Context, d *rewrite.DDL) error {
	st := c.seq.store
	switch d.Op {
	case rewrite.Create:
		spec, pos, err := d.Clauses.Create()
		if err != nil {
			return err
		}
		for _, name := range d.Names {
			err := st.Create(ctx, name, spec, pos)
			if d.IfNotExists && errors.Is(err, sequence.ErrExists) {
				continue // PostgreSQL: a notice, the sequence stays as it is
			}
			if err != nil {
				return c.storeErr(err)
			}
			c.seq.cache.Invalidate(name) // it may remember "does not exist"
		}
	case rewrite.Alter:
		for _, name := range d.Names {
			alter := func(ctx context.Context) error {
				_, err := st.Alter(ctx, name, d.Clauses)
				return err
			}
			var err error
			if changesValues(d.Clauses) {
				err = c.seq.cache.Change(ctx, name, alter)
			} else {
				err = alter(ctx) // START, CACHE, OWNED BY: cached values stay valid
			}
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return c.storeErr(err)
			}
		}
	case rewrite.Rename:
		for _, name := range d.Names {
			err := c.seq.cache.Change(ctx, name, func(ctx context.Context) error {
				return st.Rename(ctx, name, d.RenameTo)
			})
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return c.storeErr(err)
			}
			c.seq.cache.Invalidate(d.RenameTo) // it may remember "does not exist"
			c.sess.rename(name, d.RenameTo)
		}
	case rewrite.Drop:
		names := uniqueNames(d.Names) // DROP SEQUENCE c, public.C drops c once
		if !d.IfExists && len(names) > 1 {
			// PostgreSQL drops all or none: check every name first.
			for _, name := range names {
				if _, err := st.Describe(ctx, name); err != nil {
					return c.storeErr(dropError(err))
				}
			}
		}
		for _, name := range names {
			err := c.seq.cache.Change(ctx, name, func(ctx context.Context) error {
				return st.Drop(ctx, name)
			})
			if d.IfExists && errors.Is(err, sequence.ErrNotFound) {
				continue
			}
			if err != nil {
				return c.storeErr(dropError(err))
			}
			c.sess.drop(name)
		}
	default:
		return fmt.Errorf("seqshim: unknown DDL operation %v", d.Op)
	}
	return nil
}

// changesValues reports whether ALTER SEQUENCE clauses change the values
// nextval hands out, so that values cached before must not be served.
func changesValues(c sequence.Clauses) bool {
	return c.Type != nil || c.Increment != nil || c.MinValue != nil || c.NoMinValue ||
		c.MaxValue != nil || c.NoMaxValue || c.Restart || c.RestartAt != nil || c.Cycle != nil
}

// dropError is PostgreSQL's message for DROP SEQUENCE of a missing sequence,
// which names a sequence where other commands name a relation.
func dropError(err error) error {
	var se *sequence.Error
	if errors.As(err, &se) && errors.Is(se, sequence.ErrNotFound) {
		if rest, ok := strings.CutPrefix(se.Message, "relation "); ok {
			return &sequence.Error{Code: se.Code, Kind: se.Kind, Message: "sequence " + rest}
		}
	}
	return err
}

// uniqueNames drops repeated names, keeping the first of each.
func uniqueNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// argValue returns bind argument i, resolving driver.Valuer.
func argValue(user []driver.NamedValue, i int) (any, error) {
	if i < 0 || i >= len(user) {
		return nil, fmt.Errorf("seqshim: sequence call refers to parameter $%d but %d arguments were given", i+1, len(user))
	}
	v := user[i].Value
	if vr, ok := v.(driver.Valuer); ok {
		return vr.Value()
	}
	return v, nil
}

// argText returns bind argument i as regclass text.
func argText(user []driver.NamedValue, i int) (string, bool, error) {
	v, err := argValue(user, i)
	if err != nil || v == nil {
		return "", v == nil, err
	}
	switch x := v.(type) {
	case string:
		return x, false, nil
	case []byte:
		return string(x), false, nil
	case fmt.Stringer:
		return x.String(), false, nil
	}
	return "", false, fmt.Errorf("seqshim: sequence name argument $%d: want text, got %T", i+1, v)
}

// operand returns an integer operand: a constant or a bind argument
// (booleans count as 1 and 0, for setval's is_called).
func operand(user []driver.NamedValue, o rewrite.Operand) (int64, bool, error) {
	if o.Arg < 0 {
		return o.Value, false, nil
	}
	v, err := argValue(user, o.Arg)
	if err != nil || v == nil {
		return 0, v == nil, err
	}
	switch x := v.(type) {
	case int64:
		return x, false, nil
	case int:
		return int64(x), false, nil
	case int32:
		return int64(x), false, nil
	case int16:
		return int64(x), false, nil
	case int8:
		return int64(x), false, nil
	case uint32:
		return int64(x), false, nil
	case uint16:
		return int64(x), false, nil
	case uint8:
		return int64(x), false, nil
	case bool:
		if x {
			return 1, false, nil
		}
		return 0, false, nil
	case float64:
		if x == float64(int64(x)) {
			return int64(x), false, nil
		}
	case string:
		return parseOperand(x, o.Arg)
	case []byte:
		return parseOperand(string(x), o.Arg)
	}
	return 0, false, fmt.Errorf("seqshim: argument $%d: want an integer, got %T", o.Arg+1, v)
}

func parseOperand(s string, arg int) (int64, bool, error) {
	switch s {
	case "t", "true", "TRUE", "True":
		return 1, false, nil
	case "f", "false", "FALSE", "False":
		return 0, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("seqshim: argument $%d: want an integer, got %q", arg+1, s)
	}
	return n, false, nil
}

// innerExec runs SQL on the inner connection, preparing it when the inner
// driver has no ExecerContext.
func (c *conn) innerExec(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.execer != nil {
		res, err := c.execer.ExecContext(ctx, query, args)
		if !errors.Is(err, driver.ErrSkip) {
			return res, err
		}
	}
	st, err := c.prepareInner(ctx, query)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return stmtExec(ctx, st, args)
}

// innerQuery runs SQL on the inner connection, preparing it when the inner
// driver has no QueryerContext.
func (c *conn) innerQuery(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if c.queryer != nil {
		rows, err := c.queryer.QueryContext(ctx, query, args)
		if !errors.Is(err, driver.ErrSkip) {
			return rows, err
		}
	}
	st, err := c.prepareInner(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := stmtQuery(ctx, st, args)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &stmtRows{Rows: rows, stmt: st}, nil
}

// stmtExec executes an inner statement, with its context when it takes one.
func stmtExec(ctx context.Context, st driver.Stmt, args []driver.NamedValue) (driver.Result, error) {
	if se, ok := st.(driver.StmtExecContext); ok {
		return se.ExecContext(ctx, args)
	}
	return st.Exec(namedToValues(args)) //nolint:staticcheck // the inner driver has nothing else
}

// stmtQuery runs an inner statement, with its context when it takes one.
func stmtQuery(ctx context.Context, st driver.Stmt, args []driver.NamedValue) (driver.Rows, error) {
	if sq, ok := st.(driver.StmtQueryContext); ok {
		return sq.QueryContext(ctx, args)
	}
	return st.Query(namedToValues(args)) //nolint:staticcheck // the inner driver has nothing else
}

func namedToValues(args []driver.NamedValue) []driver.Value {
	out := make([]driver.Value, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// stmtRows closes the statement prepared for a query with its rows.
type stmtRows struct {
	driver.Rows
	stmt driver.Stmt
}

func (r *stmtRows) Close() error {
	return errors.Join(r.Rows.Close(), r.stmt.Close())
}
