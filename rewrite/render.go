package rewrite

import (
	"github.com/seqshim/seqshim/sequence"
	"strconv"
)

// AppendSQL appends to dst the statement's text with call site i replaced by
// values[i], and returns the extended buffer. values must have len(s.Calls)
// elements; for a statement that is not Rewrite it is ignored and Text is
// appended unchanged.
//
// Replacements:
//   - Postgres, SQL with bind parameters (Plan.NumParams > 0): call i of
//     the plan becomes ($k::int8) with k = NumParams+1+i, counting the calls of
//     all Rewrite statements of the plan in order. The text does not depend
//     on values, so it can be prepared once; the driver binds the values as
//     extra arguments (see [Statement.ParamNumber]). values is then only used
//     for its length and may be nil.
//   - otherwise the value is inlined in parentheses, typed bigint as
//     nextval's result is in PostgreSQL: (42::int8); (42) in MySQL and SQLite.
//
// A call whose name or setval operands are bind parameters keeps referencing
// them, so that every parameter keeps a type and a NULL argument gives NULL
// as in PostgreSQL: (CASE WHEN $1::text IS NULL THEN NULL ELSE $3::int8 END).
// A call that is a whole unaliased item of a top-level select list keeps
// PostgreSQL's column name: ($3::int8) AS nextval.
func (s *Statement) AppendSQL(dst []byte, values []int64) []byte {
	if s.Kind != Rewrite {
		return append(dst, s.Text...)
	}
	prev := 0
	for i := range s.Calls {
		c := &s.Calls[i]
		dst = append(dst, s.Text[prev:c.Start]...)
		var v int64
		if i < len(values) {
			v = values[i]
		}
		dst = s.appendCall(dst, c, s.firstParam+i, v)
		dst, prev = s.appendAlias(dst, c)
	}
	return append(dst, s.Text[prev:]...)
}

// ParamNumber returns the $N number that call i of a Postgres Rewrite
// statement with bind parameters is bound to, or 0 when its value is
// inlined.
func (s *Statement) ParamNumber(i int) int {
	if !s.bindValues() {
		return 0
	}
	return s.firstParam + i
}

// bindValues reports whether call values are new bind parameters rather
// than inlined literals.
func (s *Statement) bindValues() bool { return s.dialect == Postgres && s.params > 0 }

func (s *Statement) appendCall(dst []byte, c *Call, k int, v int64) []byte {
	guarded := c.NameArg >= 0 || c.Value.Arg >= 0 || c.IsCalled.Arg >= 0
	if guarded {
		dst = append(dst, "(CASE WHEN "...)
		first := true
		guard := func(arg int, typ string) {
			if arg < 0 {
				return
			}
			if !first {
				dst = append(dst, " OR "...)
			}
			first = false
			dst = s.appendParam(dst, arg+1)
			if s.dialect == Postgres {
				dst = append(dst, typ...)
			}
			dst = append(dst, " IS NULL"...)
		}
		// In text order, so that positional ? parameters stay in place.
		guard(c.NameArg, "::text")
		guard(c.Value.Arg, "::int8")
		guard(c.IsCalled.Arg, "::bool")
		dst = append(dst, " THEN NULL ELSE "...)
	} else {
		dst = append(dst, '(')
	}
	switch {
	case c.Null && s.bindValues():
		// NULL, with the value's parameter still typed by the text.
		dst = append(dst, "CASE WHEN NULL THEN $"...)
		dst = strconv.AppendInt(dst, int64(k), 10)
		dst = append(dst, "::int8 END"...)
	case c.Null && s.dialect == Postgres:
		dst = append(dst, "NULL::int8"...)
	case c.Null:
		dst = append(dst, "NULL"...)
	case s.bindValues():
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(k), 10)
		dst = append(dst, "::int8"...)
	default:
		dst = s.appendValue(dst, v)
	}
	if guarded {
		dst = append(dst, " END)"...)
	} else {
		dst = append(dst, ')')
	}
	return dst
}

// appendValue inlines a value. In PostgreSQL it is typed bigint, as nextval's
// result is: an untyped 42 would be an integer, and nextval('s') * 1000000
// would overflow where PostgreSQL computes in bigint. A negative value is
// parenthesised so the minus sign applies before the cast.
func (s *Statement) appendValue(dst []byte, v int64) []byte {
	if s.dialect != Postgres {
		return strconv.AppendInt(dst, v, 10)
	}
	if v < 0 {
		dst = append(dst, '(')
		dst = strconv.AppendInt(dst, v, 10)
		return append(dst, ")::int8"...)
	}
	dst = strconv.AppendInt(dst, v, 10)
	return append(dst, "::int8"...)
}

// appendParam appends bind parameter number n (1-based) in the dialect's
// style.
func (s *Statement) appendParam(dst []byte, n int) []byte {
	switch s.dialect {
	case Postgres:
		dst = append(dst, '$')
		return strconv.AppendInt(dst, int64(n), 10)
	case SQLite:
		dst = append(dst, '?')
		return strconv.AppendInt(dst, int64(n), 10)
	default:
		return append(dst, '?')
	}
}

// AppendSQL appends the text a plan sends to the database, and reports
// whether the call values in it are bound as parameters. It is the one
// renderer of a plan: the driver sends what it returns.
//
// The text is that of the PassThrough, Rewrite and CatalogDDL statements
// (one with a Table as written: a front end serves those that concern
// store sequences itself, see [Plan.AppendSQLTables]), and of the SequenceDDL statements when ddl is
// true (the driver's seqshim.ddl=both: applied to the store, then sent to
// the database too), in order and
// separated by ';'. Each Rewrite statement is rendered by
// [Statement.AppendSQL] with its share of values: the values of all Rewrite
// call sites in order (see [Plan.NumCalls]). Local and Reject statements are
// never sent, but for a Local statement that falls back ([Statement.Fallback]):
// it is sent as it is unless served.
//
// bound is true when the values are new parameters $NumParams+1, … in call
// order, bound by the caller as extra arguments, rather than inlined: the
// text then depends on the plan and ddl only, values is read for nothing and
// may be nil, and a caller may keep the text for the next execution.
func (p *Plan) AppendSQL(dst []byte, values []int64, ddl bool) (_ []byte, bound bool) {
	return p.AppendSQLServed(dst, values, ddl, 0)
}

// AppendSQLServed is [Plan.AppendSQL] without the CatalogDDL statements
// and the Local statements that fall back that the front end served
// itself: statement i (i < 64) is left out when bit i of served is set.
func (p *Plan) AppendSQLServed(dst []byte, values []int64, ddl bool, served uint64) (_ []byte, bound bool) {
	return p.AppendSQLTables(dst, values, ddl, served, asWritten)
}

// asWritten writes every table statement as it is: a front end serves the
// ones that concern store sequences itself (the engine's evaluateTables),
// so those it sends keep their defaults, which are the database's.
func asWritten(int, int) Rendering { return AsWritten }

// AppendSQLTables is [Plan.AppendSQLServed] where how says how the
// CatalogDDL statements with a Table are written: how(i, j) for column or
// subcommand j of statement i, as [TableDDL.AppendSQL] takes it (a nil how
// is Strip everywhere). A statement left with nothing to send is left out.
func (p *Plan) AppendSQLTables(dst []byte, values []int64, ddl bool, served uint64, how func(stmt, i int) Rendering) (_ []byte, bound bool) {
	return p.appendSQL(dst, values, ddl, served, how, nil)
}

// Natives are the parts of a plan that a session leaves to the database,
// as they are written, because they concern its temporary sequences (the
// database's own): call sites, sequence DDL statements, and Reject
// statements whose calls ([Statement.NativeOnly]) all do.
type Natives struct {
	// Calls[k] is true when call site k of the plan, counting the calls of
	// its Local and Rewrite statements in order, is left as written. A
	// Local statement with such a call is sent, its other calls written
	// with their values as in a Rewrite statement.
	Calls []bool
	// Statements has bit i set when statement i (i < 64), SequenceDDL or
	// Reject, is sent as written.
	Statements uint64
}

// call reports whether call site k is left as written.
func (n *Natives) call(k int) bool { return n != nil && k < len(n.Calls) && n.Calls[k] }

// sends reports whether statement st (number i, its first call site k)
// is sent although it would not be without natives.
func (n *Natives) sends(st *Statement, i, k int) bool {
	if n == nil {
		return false
	}
	switch st.Kind {
	case SequenceDDL, Reject:
		return i < 64 && n.Statements&(1<<i) != 0
	case Local:
		for j := range st.Calls {
			if n.call(k + j) {
				return true
			}
		}
	}
	return false
}

// AppendSQLNative is [Plan.AppendSQLServed] with natives left to the
// database: values are those of the other call sites of the statements
// sent, in order, and bound ones are numbered $NumParams+1, … in that
// order (a call left as written takes no parameter).
func (p *Plan) AppendSQLNative(dst []byte, values []int64, ddl bool, served uint64, natives *Natives) (_ []byte, bound bool) {
	return p.appendSQL(dst, values, ddl, served, asWritten, natives)
}

func (p *Plan) appendSQL(dst []byte, values []int64, ddl bool, served uint64, how func(stmt, i int) Rendering, natives *Natives) (_ []byte, bound bool) {
	n, v, k := 0, 0, 0
	for i := range p.Statements {
		s := &p.Statements[i]
		first := k // the statement's first call site in the plan
		if s.Kind == Local || s.Kind == Rewrite {
			k += len(s.Calls)
		}
		switch {
		case s.Kind == PassThrough, s.Kind == Rewrite:
		case s.Kind == SequenceDDL && ddl:
		case (s.Kind == CatalogDDL || s.Fallback()) && (i >= 64 || served&(1<<i) == 0):
		case natives.sends(s, i, first):
		default:
			continue
		}
		if s.Kind == CatalogDDL && s.Table != nil {
			mark := len(dst)
			if n > 0 {
				dst = append(dst, ';')
			}
			var h func(int) Rendering
			if how != nil {
				h = func(j int) Rendering { return how(i, j) }
			}
			var empty bool
			if dst, empty = s.Table.AppendSQL(dst, h); empty {
				dst = dst[:mark]
				continue
			}
			n++
			continue
		}
		if n > 0 {
			dst = append(dst, ';')
		}
		n++
		if s.Kind != Rewrite && s.Kind != Local {
			dst = append(dst, s.Text...)
			continue
		}
		if natives == nil {
			c := len(s.Calls)
			end := min(v+c, len(values))
			dst = s.AppendSQL(dst, values[min(v, end):end])
			bound = bound || c > 0 && s.bindValues()
			v += c
			continue
		}
		var b bool
		dst, v, b = s.appendNative(dst, values, v, natives.Calls[min(first, len(natives.Calls)):min(first+len(s.Calls), len(natives.Calls))])
		bound = bound || b
	}
	return dst, bound
}

// appendNative is [Statement.AppendSQL] with the calls native[j] left as
// written: the others take values[v], values[v+1], … in order (bound as
// parameters $NumParams+1+v, …). It returns the index of the next value.
func (s *Statement) appendNative(dst []byte, values []int64, v int, native []bool) (_ []byte, next int, bound bool) {
	prev := 0
	for i := range s.Calls {
		if i < len(native) && native[i] {
			continue // left in the text as written
		}
		c := &s.Calls[i]
		dst = append(dst, s.Text[prev:c.Start]...)
		var val int64
		if v < len(values) {
			val = values[v]
		}
		dst = s.appendCall(dst, c, s.params+1+v, val)
		bound = bound || s.bindValues()
		v++
		dst, prev = s.appendAlias(dst, c)
	}
	return append(dst, s.Text[prev:]...), v, bound
}

// aliasFor returns the column name for a rewritten call, quoted if needed.
func aliasFor(name string) string { return sequence.QuoteIdent(name) }

// appendAlias appends the column name a rewritten select item keeps
// (Call.alias), after the casts and parentheses around the call, and
// returns the offset in Text the rendering goes on from.
func (s *Statement) appendAlias(dst []byte, c *Call) ([]byte, int) {
	if c.alias == "" {
		return dst, c.End
	}
	prev := c.End
	if c.aliasAt > c.End {
		dst = append(dst, s.Text[c.End:c.aliasAt]...)
		prev = c.aliasAt
	}
	dst = append(dst, " AS "...)
	return append(dst, c.alias...), prev
}
