package rewrite

// Select items around a call: what keeps the call's column name, and the
// scalar subquery PostgreSQL evaluates once (an InitPlan).

// item returns the tokens [a, b) of the expression the call at tokens
// [ts, te) makes with what PostgreSQL's column naming (FigureColname) looks
// through: parentheses, ::type casts and CAST(… AS type). The column name of
// such an item is the call's.
func (s *stmt) item(ts, te int) (a, b int) {
	a, b = ts, te
	if s.l.d != Postgres {
		return a, b
	}
	for {
		switch {
		case b < len(s.toks) && s.tok(b).kind == tCast:
			e := s.skipType(b + 1)
			if e == b+1 {
				return a, b
			}
			b = e
		case s.punct(a-1, '(') && s.match[a-1] == b && !s.callParen(a-1):
			a, b = a-1, b+1
		case s.punct(a-1, '(') && s.is(a-2, "cast") && s.is(b, "as"):
			e := s.skipType(b + 1)
			if e == b+1 || s.match[a-1] != e {
				return a, b
			}
			a, b = a-2, e+1
		default:
			return a, b
		}
	}
}

// skipType returns the token after the type name starting at token i (i
// when there is none): a dotted name, a second keyword (double precision,
// character varying) and a modifier in parentheses.
func (s *stmt) skipType(i int) int {
	parts := s.chain(i)
	if parts == nil {
		return i
	}
	i = parts[len(parts)-1] + 1
	if s.isAny(i, "precision", "varying") {
		i++
	}
	if s.punct(i, '(') {
		i = s.match[i] + 1
	}
	return i
}

// callParen reports whether the '(' at token p opens the arguments of a
// function or a construct (abs(…), EXISTS (…), IN (…), FROM (…)) rather than
// grouping an expression.
func (s *stmt) callParen(p int) bool {
	return s.isName(p-1) && !s.isAny(p-1, "select", "distinct", "all")
}

// hasAlias reports whether token b starts an alias: AS name, or a name
// that is not a clause keyword.
func (s *stmt) hasAlias(b int) bool {
	return s.is(b, "as") || s.isName(b) && !s.isAny(b, clauseWords...)
}

// selectItem reports whether tokens [a, b) are a whole item of the select
// list of the query level they are at (the statement, or a parenthesised
// subquery), without an alias.
func (s *stmt) selectItem(a, b int) bool {
	g := s.group[a]
	start, end := 0, len(s.toks)
	if g != 0 {
		start, end = s.grps[g].open+1, s.grps[g].close
	}
	if !s.is(start, "select") || a <= start {
		return false
	}
	if !s.isAny(a-1, "select", "distinct", "all") && !s.punct(a-1, ',') {
		return false
	}
	if b < end && !s.punct(b, ',') && !s.isAny(b, clauseWords...) {
		return false
	}
	for i := start + 1; i < a; i = s.next(i) {
		if s.isAny(i, clauseWords...) {
			return false
		}
	}
	return true
}

// initPlan reports whether the call at tokens [ts, te) is the only item of
// a parenthesised SELECT without FROM, (SELECT nextval('s') [AS x]), used as
// a value: an uncorrelated scalar subquery, which PostgreSQL runs once per
// statement (an InitPlan), wherever it is written.
func (s *stmt) initPlan(ts, te int) bool {
	if s.l.d != Postgres {
		return false
	}
	a, b := s.item(ts, te)
	switch {
	case s.is(b, "as") && s.isName(b+1):
		b += 2
	case s.isName(b) && !s.isAny(b, clauseWords...):
		b++
	}
	return s.is(a-1, "select") && s.punct(a-2, '(') && s.match[a-2] == b && !s.callParen(a-2) && !s.fromItem(a-2)
}

// fromItem reports whether the '(' at token p opens an item of a FROM
// list (FROM (…), JOIN (…), LATERAL (…), a (…) after a comma of FROM): a
// subquery there is a relation, scanned as the plan joins it — once per
// row of another item when it is the inner side of a nested loop — not a
// value computed once.
func (s *stmt) fromItem(p int) bool {
	if s.isAny(p-1, "from", "join", "lateral") {
		return true
	}
	if !s.punct(p-1, ',') {
		return false
	}
	g := s.group[p]
	clause := ""
	for i := s.grps[g].open + 1; i < p; i = s.next(i) {
		if s.is(i, "select") || s.isAny(i, clauseWords...) && !s.is(i, "on") {
			clause = s.word(i)
		}
	}
	return clause == "from"
}
