package rewrite

import "strings"

// Regclass values of names: 's'::regclass is the relation's OID, which
// PostgreSQL prints as the relation's name. A store sequence has no OID in
// the database, so the database refuses the cast (42P01); a statement made
// only of such values is answered in process instead, the name printed as
// PostgreSQL prints it — when the names are store sequences' (the engine
// decides, when it runs). Elsewhere in a statement the cast goes to the
// database as it is.

// regclassTypes are the types a regclass value may be cast to next in a
// Local statement: text types whose value is the printed name. A length
// (varchar(3)) is left to the database.
var regclassTypes = []string{"text", "varchar", "name"}

// regclassItems matches a statement made of regclass values only:
// SELECT x::regclass [::text | ::varchar | ::name] [[AS] alias], … with x a
// string literal or a bind parameter and nothing after the select list.
// The calls are [Regclass] calls, and cols PostgreSQL's column names (the
// alias, else the last type's name).
func (s *stmt) regclassItems() (cols []string, calls []Call, ok bool) {
	if s.l.d != Postgres || !s.is(0, "select") {
		return nil, nil, false
	}
	for i := 1; ; {
		t := s.tok(i)
		if t.kind != tString && t.kind != tParam || s.tok(i+1).kind != tCast || !s.is(i+2, "regclass") {
			return nil, nil, false
		}
		name, unqualified, arg, err := s.nameOperand([2]int{i, i + 1})
		if err != nil || arg < 0 && !relationName(s.l, t) {
			return nil, nil, false // the database's answer: its error, or an OID
		}
		typ, e := "regclass", i+3
		if s.tok(e).kind == tCast && s.isAny(e+1, regclassTypes...) && !s.punct(e+2, '(') && !s.punct(e+2, '.') {
			typ, e = strings.ToLower(s.text(e+1)), e+2
		}
		f := s.newFound(Regclass, i, e, typ)
		f.call.Name, f.call.Unqualified, f.call.NameArg, f.call.Type = name, unqualified, arg, typ
		col := typ
		switch {
		case s.is(e, "as") && s.isName(e+1):
			col, e = s.aliasName(e+1), e+2
		case s.isName(e) && !s.isAny(e, clauseWords...):
			col, e = s.aliasName(e), e+1
		}
		cols, calls = append(cols, col), append(calls, f.call)
		switch {
		case s.punct(e, ','):
			i = e + 1
		case e == len(s.toks):
			return cols, calls, true
		default:
			return nil, nil, false
		}
	}
}

// relationName reports whether string literal t reads as a relation's name
// in regclass input, rather than an OID: regclassin takes a text of digits
// only as an OID, and "-" as none.
func relationName(l *lexer, t token) bool {
	v, ok := l.stringValue(t)
	return ok && !IsOIDText(v)
}

// IsOIDText reports whether regclass input text is an OID rather than a
// name: digits only, or "-" (no relation).
func IsOIDText(v string) bool {
	if v == "-" {
		return true
	}
	return v != "" && strings.Trim(v, "0123456789") == ""
}
