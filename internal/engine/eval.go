package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// Evaluation is the outcome of a plan's sequence work, done in statement
// order before anything is sent to the database.
type Evaluation struct {
	// Values are the values of the Rewrite call sites, in plan order, for
	// [Session.SQL]. They are the session's scratch space: valid until its
	// next Evaluate.
	Values []int64
	// First is the first statement's rows when it is Local (then the
	// statement's result is those rows, as pgx returns the first result of
	// a multi-statement string), nil otherwise.
	First *Rows
	// Send is true when some statement goes to the database: render them
	// with [Session.SQL].
	Send bool
	// RowsAffected counts the rows of the Local statements: an Exec's
	// result when nothing is sent.
	RowsAffected int64
}

// Evaluate does the sequence work of p with the caller's arguments: draws
// the values of call sites, answers Local statements and applies sequence
// DDL, in statement order. In a failed transaction it does nothing and
// returns PostgreSQL's 25P02 error ([Session.TxFailed]); any other error is
// returned by way of [Session.Fail].
func (s *Session[A]) Evaluate(ctx context.Context, p *Prepared, args A) (Evaluation, error) {
	if err := s.TxFailed(); err != nil {
		return Evaluation{}, err
	}
	ev, err := s.evaluate(ctx, p.plan, args)
	if p.path != 0 {
		// After the sequence work: it resolves names with the path of
		// before the string runs, as the statements before a change do.
		s.notePath(p.path)
	}
	if err != nil {
		return ev, s.Fail(ctx, err)
	}
	return ev, nil
}

func (s *Session[A]) evaluate(ctx context.Context, pl *rewrite.Plan, args A) (Evaluation, error) {
	var ev Evaluation
	if pl.Err != nil {
		return ev, pl.Err // no statement of a string with a rejected one runs
	}
	if n := pl.NumCalls(); n > len(s.scratch) {
		ev.Values = make([]int64, 0, n)
	} else {
		ev.Values = s.scratch[:0]
	}
	for i := range pl.Statements {
		st := &pl.Statements[i]
		switch st.Kind {
		case rewrite.PassThrough:
			ev.Send = true
		case rewrite.Rewrite:
			ev.Send = true
			for j := range st.Calls {
				v, _, err := s.call(ctx, &st.Calls[j], args)
				if err != nil {
					return ev, err
				}
				ev.Values = append(ev.Values, v)
			}
		case rewrite.Local:
			rows, err := s.local(ctx, st, args)
			if err != nil {
				return ev, err
			}
			ev.RowsAffected += int64(rows.NumRows())
			if i == 0 {
				ev.First = rows
			}
		case rewrite.SequenceDDL:
			if err := s.ddl(ctx, st.DDL); err != nil {
				return ev, err
			}
			ev.Send = ev.Send || s.eng.ddlToDB
		default: // Reject is the plan's Err, handled above
			return ev, fmt.Errorf("seqshim: unknown statement kind %v", st.Kind)
		}
	}
	return ev, nil
}

// call evaluates one sequence call. null is true when PostgreSQL would
// return NULL (a NULL argument to these strict functions).
func (s *Session[A]) call(ctx context.Context, call *rewrite.Call, args A) (v int64, null bool, err error) {
	name, unqualified := call.Name, call.Unqualified
	if call.NameArg >= 0 {
		text, null, err := argText(args, call.NameArg)
		if err != nil || null {
			return 0, null, err
		}
		var qualified bool
		if name, qualified, err = sequence.ParseRelation(text); err != nil {
			return 0, false, err
		}
		unqualified = !qualified
	}
	written := name // as written, for PostgreSQL's messages
	if unqualified && call.Func != rewrite.Lastval {
		if name, err = s.resolve(ctx, name); err != nil {
			return 0, false, err
		}
	}
	switch call.Func {
	case rewrite.Nextval:
		v, err = s.handle(name).Next(ctx)
		if err != nil && unqualified && written != name && errors.Is(err, sequence.ErrNotFound) {
			// Dropped since it was resolved (by another process): resolve
			// it again.
			s.forget(written)
			if name, err = s.resolve(ctx, written); err != nil {
				return 0, false, err
			}
			v, err = s.handle(name).Next(ctx)
		}
		if err != nil {
			if !unqualified {
				err = s.missingSchema(ctx, name, err)
			}
			return 0, false, storeErr(err)
		}
		s.seq.nextval(name, v)
		return v, false, nil
	case rewrite.Currval:
		if v, ok := s.seq.currval(name); ok {
			return v, false, nil
		}
		// PostgreSQL looks the relation up first: a missing one is 42P01.
		if _, err := s.eng.store.Describe(ctx, name); err != nil {
			if !unqualified {
				err = s.missingSchema(ctx, name, err)
			}
			return 0, false, storeErr(err)
		}
		return 0, false, sequence.CurrvalNotDefinedError(name)
	case rewrite.Lastval:
		if v, ok := s.seq.lastval(); ok {
			return v, false, nil
		}
		return 0, false, sequence.LastvalNotDefinedError()
	case rewrite.Setval:
		val, null, err := operand(args, call.Value)
		if err != nil || null {
			return 0, null, err
		}
		isCalled, null, err := operand(args, call.IsCalled)
		if err != nil || null {
			return 0, null, err
		}
		err = s.eng.cache.Change(ctx, name, func(ctx context.Context) error {
			_, err := s.eng.store.SetVal(ctx, name, val, isCalled != 0)
			return err
		})
		if err != nil {
			if !unqualified {
				err = s.missingSchema(ctx, name, err)
			}
			return 0, false, storeErr(err)
		}
		if isCalled != 0 {
			s.seq.set(name, val)
		}
		return val, false, nil
	}
	return 0, false, fmt.Errorf("seqshim: unknown sequence function %v", call.Func)
}

// handle returns the cache handle of sequence name, remembering the last
// one: statements drawing from one sequence skip the cache's name lookup.
func (s *Session[A]) handle(name string) *seqcache.Handle {
	if h := s.lastHandle; h != nil && h.Name() == name {
		return h
	}
	h := s.eng.cache.Handle(name)
	s.lastHandle = h
	return h
}

// storeErr labels an error that is not PostgreSQL's own as the store's.
func storeErr(err error) error {
	var se *sequence.Error
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("seqshim: sequence store: %w", err)
}

// local answers a Local statement: one row, or one per generate_series
// value, each evaluating the calls in order.
func (s *Session[A]) local(ctx context.Context, st *rewrite.Statement, args A) (*Rows, error) {
	n := int64(1)
	if st.Series != nil {
		start, null1, err := operand(args, st.Series.Start)
		if err != nil {
			return nil, err
		}
		end, null2, err := operand(args, st.Series.End)
		if err != nil {
			return nil, err
		}
		if null1 || null2 {
			n = 0 // generate_series(NULL, …) has no rows
		} else {
			n = st.Series.Rows(start, end)
		}
	}
	cols := len(st.Calls)
	r := &Rows{columns: st.Columns, typeName: s.eng.intTypeName()}
	if cols == 0 || n <= int64(len(r.small)/cols) {
		r.values = r.small[:0] // the common single row: one allocation less
	} else {
		r.values = make([]int64, 0, min(n, 1024)*int64(cols))
	}
	for i := range n {
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, err // a long series stops when the caller gives up
			}
		}
		for j := range st.Calls {
			v, null, err := s.call(ctx, &st.Calls[j], args)
			if err != nil {
				return nil, err
			}
			r.add(v, null)
		}
	}
	return r, nil
}

// argValue returns bind argument i.
func argValue[A Args](args A, i int) (any, error) {
	if i < 0 || i >= args.Len() {
		return nil, fmt.Errorf("seqshim: sequence call refers to parameter $%d but %d arguments were given", i+1, args.Len())
	}
	return args.Arg(i)
}

// argText returns bind argument i as regclass text.
func argText[A Args](args A, i int) (string, bool, error) {
	v, err := argValue(args, i)
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
func operand[A Args](args A, o rewrite.Operand) (int64, bool, error) {
	if o.Arg < 0 {
		return o.Value, false, nil
	}
	v, err := argValue(args, o.Arg)
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
