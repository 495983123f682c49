// Evaluating a plan: the values of its sequence calls, its locally answered
// statements and its sequence DDL, in statement order.

package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/seqshim/seqshim/rewrite"
	"github.com/seqshim/seqshim/seqcache"
	"github.com/seqshim/seqshim/sequence"
)

// Evaluation is the outcome of a plan's sequence work, done in statement
// order before anything is sent to the database.
type Evaluation struct {
	// Values are the values of the Rewrite call sites, in plan order, for
	// [Session.render]. They are the session's scratch space: valid until its
	// next Evaluate.
	Values []int64
	// First is a Query's result (Request.Rows) when the first statement
	// was answered here: a Local statement's rows, or Rows without columns
	// for sequence DDL and served catalog DDL; nil otherwise.
	First *Rows
	// Send is true when some statement goes to the database: render them
	// with [Session.render].
	Send bool
	// RowsAffected is the last statement's rows affected when it was
	// answered here (Last): an Exec's result, as pgx's Exec returns the
	// last command tag of a string.
	RowsAffected int64
	// Last: the last statement was answered here, and RowsAffected is an
	// Exec's result even when statements are sent.
	Last bool
	// Drops: a statement sent may drop columns that own store sequences,
	// which Finish then drops from the store, after a catalog query on
	// the session.
	Drops bool

	drew bool // a store sequence's nextval returned a value
}

// answered records statement i of pl, answered here with rows (nil for a
// command without rows): the first statement's result is a Query's, the
// last one's rows affected an Exec's, as pgx returns a string's first
// result and its last command tag. Rows that are neither are closed, for
// reuse.
func (s *Session[A]) answered(ev *Evaluation, pl *rewrite.Plan, i int, rows *Rows) {
	if i == len(pl.Statements)-1 {
		ev.Last, ev.RowsAffected = true, 0
		if rows != nil {
			ev.RowsAffected = int64(rows.NumRows())
		}
	}
	switch {
	case i != 0 || !s.req.Rows:
		if rows != nil {
			rows.Close()
		}
	case rows != nil:
		ev.First = rows
	default:
		ev.First = s.newRows(nil)
	}
}

// evaluatePlan does the sequence work of p with the caller's arguments:
// draws the values of call sites, answers Local statements and applies
// sequence DDL, in statement order. In a failed transaction it does nothing
// and returns PostgreSQL's 25P02 error ([Session.txFailed]); any other error
// is returned by way of [Session.Fail].
func (s *Session[A]) evaluatePlan(ctx context.Context, p *Statement, args A) (Evaluation, error) {
	if err := s.txFailed(); err != nil {
		return Evaluation{}, err
	}
	ev, err := s.evaluate(ctx, p.plan, args, p)
	if !p.local || s.nativeAny {
		s.heardFrom() // it reaches the database, or may have: DDL, the catalog
	}
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

// evaluate does the sequence work of pl, the plan of p (nil for a
// statement of a string evaluateTables runs one by one).
func (s *Session[A]) evaluate(ctx context.Context, pl *rewrite.Plan, args A, p *Statement) (Evaluation, error) {
	var ev Evaluation
	s.resetNatives()
	if pl.Err != nil {
		// No statement of a string with a rejected one runs, unless the
		// rejected ones are all about temporary sequences.
		if ok, err := s.rescue(ctx, pl, args); err != nil || !ok {
			if err == nil {
				err = pl.Err
			}
			return ev, err
		}
	}
	if s.tx != nil {
		if err := s.checkControl(pl); err != nil {
			return ev, err
		}
	}
	s.served = 0
	if pl.HasTables() {
		if ok, err := s.servesTables(ctx, pl); err != nil || ok {
			if err != nil {
				return ev, err
			}
			return s.evaluateTables(ctx, pl)
		}
	}
	var drawsTemp, tempTarget bool // see Statement
	if p != nil {
		if err := s.tempOrderErr(p); err != nil {
			return ev, err
		}
		drawsTemp, tempTarget = p.drawsTemp, p.tempTarget
	}
	if n := pl.NumCalls(); n > len(s.scratch) {
		ev.Values = make([]int64, 0, n)
	} else {
		ev.Values = s.scratch[:0]
	}
	s.planMode, s.dmlVerb = modeUnknown, ""
	k := 0               // the plan's call site of the statement's first call
	pathChanged := false // a statement before may have changed the search_path
	for i := range pl.Statements {
		st := &pl.Statements[i]
		first := k
		if st.Kind == rewrite.Rewrite || st.Kind == rewrite.Local {
			k += len(st.Calls)
		}
		if i > 0 && pl.Statements[i-1].Path&rewrite.ChangesPath != 0 {
			pathChanged = true
		}
		switch st.Kind {
		case rewrite.PassThrough:
			ev.Send = true
			if s.db != nil && s.planMode != modeUnclear {
				switch st.Mode {
				case rewrite.ModeDefault:
					s.planMode, s.planChange = modeDefault, st.Text
				case rewrite.ModeUnclear:
					s.planMode, s.planChange = modeUnclear, st.Text
				}
			}
		case rewrite.Rewrite:
			ev.Send = true
			s.dmlVerb = st.Verb
			if tempTarget {
				s.dmlVerb = "" // PostgreSQL writes a temporary table in a read-only transaction
			}
			native, from, err := s.natives(ctx, st, args, first, drawsTemp)
			if err == nil {
				err = s.drawCalls(ctx, st, args, first, native, from, &ev)
			}
			if err != nil {
				return ev, err
			}
			s.dmlVerb = ""
		case rewrite.Local:
			if native, err := s.nativeLocal(ctx, st, args, first, drawsTemp, &ev); err != nil || native {
				if err != nil {
					return ev, err
				}
				ev.Send = true // with its calls of temporary sequences as written
				continue
			}
			var rows *Rows
			var err error
			switch {
			case !st.Fallback():
				rows, err = s.local(ctx, st, args)
			case i < 64 && !pathChanged:
				// (After a change of the search_path, the names print
				// as the database's new path says: it answers.)
				rows, err = s.regclassRows(ctx, st, args)
			}
			if err != nil {
				return ev, err
			}
			if rows == nil { // not a store sequence's: the database answers
				ev.Send = true
				continue
			}
			if st.Fallback() {
				s.served |= 1 << i
			}
			s.answered(&ev, pl, i, rows)
		case rewrite.SequenceDDL:
			if i == 0 && s.tx == nil && s.inTx() {
				if err := s.checkControl(pl); err != nil {
					return ev, err
				}
			}
			if native, err := s.nativeDDL(ctx, st.DDL); err != nil || native {
				if err != nil {
					return ev, err
				}
				if i >= 64 {
					return ev, unsupportedf("seqshim: DDL of a temporary sequence after the 64th statement of a string: send it separately")
				}
				s.native.Statements |= 1 << i
				s.nativeAny, ev.Send = true, true
				continue
			}
			if err := s.sequenceDDL(ctx, st.DDL); err != nil {
				return ev, err
			}
			if s.eng.ddlToDB {
				ev.Send = true // the database answers it too
			} else {
				s.answered(&ev, pl, i, nil)
			}
		case rewrite.CatalogDDL:
			served, err := s.catalogDDL(ctx, st.Catalog)
			if err != nil {
				return ev, err
			}
			if served && i < 64 {
				s.served |= 1 << i
				s.answered(&ev, pl, i, nil)
			} else {
				ev.Send = true
				ev.Drops = ev.Drops || st.Catalog.Op == rewrite.DropsOwners
			}
		case rewrite.Reject: // rescued above: the database evaluates its calls
			ev.Send = true
			for j := range st.NativeOnly {
				if st.NativeOnly[j].Func == rewrite.Nextval {
					s.seq.from = lastDatabase
				}
			}
		default:
			return ev, fmt.Errorf("seqshim: unknown statement kind %v", st.Kind)
		}
	}
	return ev, nil
}

// drawCalls draws the values of the calls of st, a statement sent with
// its calls rewritten whose first call is the plan's call site k, into
// ev.Values, but for those the database evaluates: native and from are
// what Session.natives found.
func (s *Session[A]) drawCalls(ctx context.Context, st *rewrite.Statement, args A, k int, native bool, from lastFrom, ev *Evaluation) error {
	for j := range st.Calls {
		if native && s.isNative(k+j) {
			continue
		}
		c := &st.Calls[j]
		v, null, err := s.call(ctx, c, args)
		if err != nil {
			return err
		}
		ev.drew = ev.drew || c.Func == rewrite.Nextval && !null
		ev.Values = append(ev.Values, v)
	}
	if native {
		s.seq.from = from
	}
	return nil
}

// nativeLocal evaluates a Local statement that calls a temporary
// sequence (Session.natives): it is sent to the database then, its
// other calls rewritten as a Rewrite statement's. native is false for a
// statement without one, answered here as usual.
func (s *Session[A]) nativeLocal(ctx context.Context, st *rewrite.Statement, args A, k int, drawsTemp bool, ev *Evaluation) (native bool, err error) {
	native, from, err := s.natives(ctx, st, args, k, drawsTemp)
	if err != nil || !native {
		return false, err
	}
	if st.Series != nil {
		for j := range st.Calls {
			if !s.isNative(k + j) {
				return false, errTempPerRow
			}
		}
	}
	return true, s.drawCalls(ctx, st, args, k, native, from, ev)
}

// call evaluates one sequence call. null is true when PostgreSQL would
// return NULL (a NULL argument to these strict functions).
func (s *Session[A]) call(ctx context.Context, call *rewrite.Call, args A) (v int64, null bool, err error) {
	if fastCall(call) && s.tx == nil && !s.temps.maybe {
		v, err := s.nextval(ctx, call, args)
		return v, false, err
	}
	return s.evalCall(ctx, call, args)
}

// fastCall reports whether call is nextval of a sequence named in the
// text, which Session.nextval serves while the transaction holds no
// sequence DDL and the session has no temporary relations.
func fastCall(call *rewrite.Call) bool {
	return call.Func == rewrite.Nextval && call.NameArg < 0 && call.Name != "" && !call.Null
}

// evalCall is call, the whole way.
func (s *Session[A]) evalCall(ctx context.Context, call *rewrite.Call, args A) (v int64, null bool, err error) {
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
	if unqualified && call.Func != rewrite.Lastval && name != "" {
		r, err := s.resolve(ctx, name)
		switch {
		case err == nil:
			name = r
		case s.tx != nil && errors.Is(err, sequence.ErrNotFound):
			// Perhaps one this transaction created: heldCall knows.
		default:
			return 0, false, err
		}
	}
	storeName := name
	var hs *heldSeq // a sequence this transaction created or altered
	if s.tx != nil {
		if hs, storeName, err = s.heldCall(call.Func, name); err != nil {
			return 0, false, err
		}
	}
	if call.Null {
		if hs != nil {
			return 0, true, nil // it exists, in this transaction
		}
		return s.null(ctx, storeName)
	}
	if call.Func == rewrite.Nextval || call.Func == rewrite.Currval {
		// The relation first, then the privilege, then the rest.
		if err := s.callAllowed(ctx, call.Func, name); err != nil {
			return 0, false, err
		}
	}
	if hs != nil {
		return s.localCall(ctx, call, args, name, hs)
	}
	switch call.Func {
	case rewrite.Nextval:
		if err := s.writable(ctx, name, "nextval()"); err != nil {
			return 0, false, err
		}
		v, err := s.draw(ctx, written, name, storeName, unqualified, nil)
		return v, false, err
	case rewrite.Currval:
		if v, ok := s.currval(name); ok {
			return v, false, nil
		}
		// PostgreSQL looks the relation up first: a missing one is 42P01.
		if err := s.lookUp(ctx, storeName); err != nil {
			return 0, false, s.callErr(ctx, name, unqualified, err)
		}
		return 0, false, sequence.CurrvalNotDefinedError(name)
	case rewrite.Lastval:
		if s.tx != nil && s.seq.lastUsed != "" {
			if _, gone := s.tx.lookup(s.seq.lastUsed); gone {
				return 0, false, sequence.LastvalNotDefinedError() // its sequence is dropped
			}
		}
		if v, ok := s.lastval(); ok {
			if err := s.callAllowed(ctx, rewrite.Lastval, s.seq.lastUsed); err != nil {
				return 0, false, err
			}
			return v, false, nil
		}
		return 0, false, sequence.LastvalNotDefinedError()
	case rewrite.Setval:
		val, null, err := operand(args, call.Value, false)
		if err != nil {
			return 0, false, err
		}
		if null {
			return s.null(ctx, storeName)
		}
		isCalled, null, err := operand(args, call.IsCalled, true)
		if err != nil {
			return 0, false, err
		}
		if null {
			return s.null(ctx, storeName)
		}
		if err := s.callAllowed(ctx, rewrite.Setval, name); err != nil {
			return 0, false, err
		}
		if err := s.writable(ctx, name, "setval()"); err != nil {
			return 0, false, err
		}
		err = s.eng.cache.Change(ctx, storeName, func(ctx context.Context) error {
			if err := s.lookUp(ctx, storeName); err != nil {
				return err
			}
			info, err := s.eng.store.SetVal(ctx, storeName, val, isCalled != 0)
			if err == nil {
				s.noticeShared(ctx, info, "setval")
			}
			return err
		})
		if err != nil {
			return 0, false, s.callErr(ctx, name, unqualified, err)
		}
		if isCalled != 0 {
			s.seq.set(name, val, s.eng.cache.Incarnation(name))
		}
		return val, false, nil
	}
	return 0, false, fmt.Errorf("seqshim: unknown sequence function %v", call.Func)
}

// draw is nextval of sequence name, written as written (resolved when
// unqualified), once allowed: the value from the cache, noted as the
// session's currval and lastval. storeName is the store's name of it,
// which differs from name for a sequence renamed in the open transaction;
// h is its cache handle, or nil.
func (s *Session[A]) draw(ctx context.Context, written, name, storeName string, unqualified bool, h *seqcache.Handle) (int64, error) {
	if h == nil {
		h = s.handle(storeName)
	}
	var v int64
	err := s.here(ctx, h, s.tx != nil && s.tx.seqs[name] != nil)
	if err == nil {
		v, err = h.Next(ctx)
	}
	if err != nil && unqualified && written != name && storeName == name && errors.Is(err, sequence.ErrNotFound) {
		// Dropped since it was resolved (by another process): resolve
		// it again.
		s.forget(written)
		if name, err = s.resolve(ctx, written); err != nil {
			return 0, err
		}
		storeName = name
		h = s.handle(name)
		if err = s.here(ctx, h, false); err == nil {
			v, err = h.Next(ctx)
		}
	}
	if err != nil {
		return 0, s.callErr(ctx, name, unqualified, err)
	}
	inc := h.Incarnation()
	if storeName != name { // renamed in this transaction: keyed by its new name
		inc = s.eng.cache.Incarnation(name)
	}
	s.seq.nextval(name, v, inc)
	return v, nil
}

// fastNextval is what Session.nextval keeps of the last nextval call it
// evaluated: the sequence its name resolved to, with its cache handle (the
// cache keeps one per name for good), and the state the resolution was
// made in (the engine's DDL generation, the session's search_path and
// temporary relations). While none of those changed, resolving the name
// again would give the same sequence.
type fastNextval struct {
	call                   *rewrite.Call
	name                   string
	h                      *seqcache.Handle
	ddlGen, path, tempsGen uint64
}

// nextval is call for a fastCall while the transaction holds no sequence
// DDL (which call would consult) and the session has no temporary
// relations (which may hide a sequence): the same checks in the same
// order — the privilege, a read-only transaction, the database's
// membership — and the same draw, but the name's resolution is
// remembered between executions of the call. SELECT nextval('s') in a
// loop is the hot path of the programs that draw their ids themselves,
// an INSERT leaving its id to a serial default that of the others.
// Session.drawAgain makes the same checks for that INSERT: a change here
// is a change there.
func (s *Session[A]) nextval(ctx context.Context, c *rewrite.Call, args A) (int64, error) {
	f := &s.fast
	gen := s.eng.ddlGen.Load()
	if f.call != c || f.ddlGen != gen || f.path != s.path.changes || f.tempsGen != s.temps.gen || !s.path.known && s.db != nil {
		f.call = nil
		v, _, err := s.evalCall(ctx, c, args)
		if err == nil {
			// The name as nextval noted it: resolved, as call found it.
			*f = fastNextval{call: c, name: s.seq.lastUsed, h: s.lastHandle, ddlGen: gen, path: s.path.changes, tempsGen: s.temps.gen}
		}
		return v, err
	}
	if err := s.callAllowed(ctx, rewrite.Nextval, f.name); err != nil {
		return 0, err
	}
	if err := s.writable(ctx, f.name, "nextval()"); err != nil {
		return 0, err
	}
	v, err := s.draw(ctx, c.Name, f.name, f.name, c.Unqualified, f.h)
	if err != nil || s.seq.lastUsed != f.name {
		f.call = nil // failed, or resolved again as it was dropped meanwhile
	}
	return v, err
}

// localCall evaluates a call on a sequence the open transaction owns
// (created, or altered so that its values change): nothing reaches the
// store before COMMIT.
func (s *Session[A]) localCall(ctx context.Context, call *rewrite.Call, args A, name string, hs *heldSeq) (int64, bool, error) {
	switch call.Func {
	case rewrite.Nextval:
		if err := s.writable(ctx, name, "nextval()"); err != nil {
			return 0, false, err
		}
		v, err := localNext(name, hs)
		if err != nil {
			return 0, false, err
		}
		s.seq.nextval(name, v, s.eng.cache.Incarnation(name))
		return v, false, nil
	case rewrite.Currval:
		if e, ok := s.seq.currval(name); ok {
			return e.v, false, nil
		}
		return 0, false, sequence.CurrvalNotDefinedError(name)
	case rewrite.Setval:
		val, null, err := operand(args, call.Value, false)
		if err != nil || null {
			return 0, null, err // NULL: the sequence exists, in this transaction
		}
		isCalled, null, err := operand(args, call.IsCalled, true)
		if err != nil || null {
			return 0, null, err
		}
		if err := s.callAllowed(ctx, rewrite.Setval, name); err != nil {
			return 0, false, err
		}
		if err := s.writable(ctx, name, "setval()"); err != nil {
			return 0, false, err
		}
		if err := localSetval(name, hs, val, isCalled != 0); err != nil {
			return 0, false, err
		}
		if isCalled != 0 {
			s.seq.set(name, val, s.eng.cache.Incarnation(name))
		}
		return val, false, nil
	}
	return 0, false, fmt.Errorf("seqshim: unknown sequence function %v", call.Func)
}

// callErr is the error of a sequence call on name that the store refused:
// 42809 when the name is a table's, 3F000 when a schema written in the
// call does not exist, labelled as the store's otherwise.
func (s *Session[A]) callErr(ctx context.Context, name string, unqualified bool, err error) error {
	err = s.notSequence(ctx, name, unqualified, err)
	if !unqualified {
		err = s.missingSchema(ctx, name, err)
	}
	return s.eng.storeErr(err)
}

// null is the result of a call with a NULL argument: NULL, once the
// sequence name (if any) is known to exist, as PostgreSQL resolves a
// regclass argument before it calls the function.
func (s *Session[A]) null(ctx context.Context, name string) (int64, bool, error) {
	if name != "" {
		if err := s.lookUp(ctx, name); err != nil {
			return 0, false, s.eng.storeErr(err)
		}
	}
	return 0, true, nil
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

// storeErr labels an error that is not PostgreSQL's own as the store's,
// naming the store, once.
func (e *Engine) storeErr(err error) error {
	var se *sequence.Error
	var labeled *storeError
	if errors.As(err, &se) || errors.As(err, &labeled) {
		return err
	}
	return &storeError{label: e.label, err: err}
}

// storeError is an error of the store, labeled by storeErr.
type storeError struct {
	label string
	err   error
}

func (e *storeError) Error() string { return e.label + ": " + e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// local answers a Local statement: one row, or one per generate_series
// value, each evaluating the calls in order.
func (s *Session[A]) local(ctx context.Context, st *rewrite.Statement, args A) (*Rows, error) {
	n := int64(1)
	if st.Series != nil {
		start, null1, err := operand(args, st.Series.Start, false)
		if err != nil {
			return nil, err
		}
		end, null2, err := operand(args, st.Series.End, false)
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
	r := s.newRows(st.Columns)
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
// (booleans count as 1 and 0, for setval's is_called). Text is read as
// PostgreSQL reads a parameter of the operand's type: boolean when isBool
// (setval's is_called), else bigint.
func operand[A Args](args A, o rewrite.Operand, isBool bool) (int64, bool, error) {
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
		return parseOperand(x, isBool)
	case []byte:
		return parseOperand(string(x), isBool)
	}
	return 0, false, fmt.Errorf("seqshim: argument $%d: want an integer, got %T", o.Arg+1, v)
}

func parseOperand(s string, isBool bool) (int64, bool, error) {
	if isBool {
		b, err := rewrite.ParseBool(s)
		if b {
			return 1, false, err
		}
		return 0, false, err
	}
	n, err := rewrite.ParseInt8(s)
	return n, false, err
}
