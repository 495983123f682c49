package rewrite

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seqshim/seqshim/sequence"
)

// build plans sql from scratch.
func build(d Dialect, sql string) *Plan {
	if i := strings.IndexByte(sql, 0); i >= 0 {
		// No database accepts a NUL byte in SQL text, and lexers disagree
		// on what it separates: PostgreSQL refuses the whole message
		// (08P01) before it reads any of it; the others may stop at it.
		if d == Postgres {
			return passThroughPlan
		}
		return rejectPlan(sql, syntaxErr("seqshim: syntax error: a NUL byte at offset %d; nothing of the text was run", i))
	}
	if d == Postgres && !utf8.ValidString(sql) {
		// PostgreSQL refuses the whole string (22021) before it parses
		// it. With nothing to draw (a text planned for its session
		// effects) it goes there for that error; nothing of it runs.
		if !mayTrigger(sql) {
			return passThroughPlan
		}
		return rejectPlan(sql, sequence.InvalidEncodingError(sql))
	}
	l := lex(d, sql)
	if l.unreadable() {
		return unreadablePlan(d, l)
	}
	spans := split(l)
	if d == Postgres {
		if err := visibleSyntaxError(l, spans); err != nil {
			if !mayTrigger(sql) {
				// Nothing to draw (a text planned for its session
				// effects): PostgreSQL refuses it whole with its own
				// error, and nothing of it runs, so it has no effects.
				return passThroughPlan
			}
			return rejectPlan(sql, err)
		}
	}
	p := &Plan{NumParams: l.params}
	calls := 0
	for _, r := range spans {
		st := analyze(l, r)
		st.dialect, st.params = d, l.params
		if d == Postgres {
			p.effects(l, l.toks[r.a:r.b], &st)
		}
		if st.Kind == Rewrite {
			st.firstParam = l.params + 1 + calls
			calls += len(st.Calls)
		}
		if st.Kind == Reject && p.Err == nil {
			p.Err = st.Err
		}
		p.Statements = append(p.Statements, st)
	}
	p.passThrough = true
	for i := range p.Statements {
		if p.Statements[i].Kind != PassThrough {
			p.passThrough = false
		}
	}
	if p.passThrough && !p.hasEffects && !p.Inserts && !p.Redefines {
		return passThroughPlan
	}
	return p
}

// unreadablePlan is the plan of a text the lexer cannot read. PostgreSQL
// parses a whole string before it runs any statement of it, so it refuses
// such a text with its own syntax error (42601, with its message and
// position) and runs nothing: the text goes to it as it is, and no
// sequence call in it is ever evaluated by the database. MySQL and SQLite
// run the statements of a string one after the other, so an earlier one
// could run there before the error: seqshim refuses the text itself.
func unreadablePlan(d Dialect, l *lexer) *Plan {
	if d == Postgres {
		return passThroughPlan
	}
	what := "unbalanced parentheses"
	if l.open {
		what = "an unterminated literal, quoted identifier or comment"
	}
	return rejectPlan(l.s, syntaxErr("seqshim: syntax error: %s; nothing of the text was run", what))
}

// statementStarts are the words a PostgreSQL statement starts with (the
// first keywords of gram.y's stmt), besides '(' of a parenthesised query.
var statementStarts = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`abort alter analyse analyze begin call checkpoint close cluster comment commit copy
		create deallocate declare delete discard do drop end execute explain fetch grant import insert listen load lock
		merge move notify prepare reassign refresh reindex release reset revoke rollback savepoint security select set
		show start table truncate unlisten update vacuum values with`) {
		statementStarts[w] = true
	}
}

// danglingWords are reserved words no PostgreSQL statement ends with: each
// needs what follows it. (Most other keywords may end one: since version
// 14 they are bare column labels, as in SELECT 1 AND; ON and TO end SET x
// TO on.)
var danglingWords = []string{"as", "from", "where", "into", "returning", "having", "limit", "offset",
	"union", "intersect", "except", "group", "order", "window"}

// visibleSyntaxError returns PostgreSQL's 42601 for a syntax error the
// tokens show (statements of a readable text in the postgres dialect): a
// statement that starts with something other than a statement's first
// keyword or '(', that ends with a comma, an operator (PostgreSQL has no
// postfix operators since version 14; '*' ends SELECT *), a cast or a
// reserved word that needs something after it (AS, FROM, WHERE, …), that
// has an empty element in a list (a,, b; f(a, )) or a zero-length quoted
// identifier (""), or that has a ';' inside
// parentheses (only the actions of CREATE RULE may). PostgreSQL refuses such a string
// whole, before it runs any of it: nothing may be drawn or changed for
// it. The many errors the tokens do not show are the database's to report,
// after seqshim did the sequence work of the statements it read.
//
// seqshim refuses a text with a trigger word itself rather than pass it
// through, so that a later PostgreSQL that accepts more (a new statement)
// never evaluates a call in it from its own sequence; a text without one
// (planned for its session effects) goes to PostgreSQL, whose error is
// exact.
func visibleSyntaxError(l *lexer, spans []span) error {
	for _, sp := range spans {
		first := l.toks[sp.a]
		if !l.punct(first, '(') && !(first.kind == tIdent && statementStarts[strings.ToLower(l.text(first))]) {
			return syntaxErr(`syntax error at or near "%s"`, l.text(first))
		}
		for i := sp.a; i < sp.b; i++ {
			t := l.toks[i]
			if t.kind == tQIdent && strings.HasSuffix(l.text(t), `""`) && (t.end-t.start == 2 || t.end-t.start == 4 && l.s[t.start+1] == '&') {
				return syntaxErr(`zero-length delimited identifier at or near "%s"`, l.text(t))
			}
			if l.punct(t, ';') && !l.is(first, "create") {
				return syntaxErr(`syntax error at or near ";"`)
			}
			// No list of PostgreSQL's has an empty element: f(a, ),
			// (, a), a,, b are syntax errors.
			if i+1 < sp.b && (l.punct(t, ',') || l.punct(t, '(') || l.punct(t, '[')) {
				if n := l.toks[i+1]; l.punct(n, ',') || l.punct(t, ',') && (l.punct(n, ')') || l.punct(n, ']')) {
					return syntaxErr(`syntax error at or near "%s"`, l.text(n))
				}
			}
		}
		last := l.toks[sp.b-1]
		dangling := last.kind == tCast
		switch {
		case isOperatorChar(l, last):
			// An operator ends ORDER BY … USING op and CREATE OPERATOR
			// CLASS … OPERATOR n op; nothing else.
			i := sp.b - 1
			for i > sp.a && isOperatorChar(l, l.toks[i-1]) {
				i--
			}
			dangling = !l.is(l.toks[max(i-1, sp.a)], "using") &&
				!(i-2 >= sp.a && l.toks[i-1].kind == tNumber && l.is(l.toks[i-2], "operator"))
		case last.kind == tIdent:
			// After AS or a dot, any keyword is a name (ColLabel,
			// attr_name): SELECT 1 AS from, DROP TABLE public.order.
			if prev := l.toks[max(sp.b-2, sp.a)]; sp.b-2 >= sp.a && (l.is(prev, "as") || l.punct(prev, '.')) {
				break
			}
			for _, w := range danglingWords {
				dangling = dangling || l.is(last, w)
			}
		}
		if dangling {
			if sp.terminated {
				return syntaxErr(`syntax error at or near ";"`)
			}
			return syntaxErr("syntax error at end of input")
		}
	}
	if l.vtab {
		// PostgreSQL before version 16 reads a vertical tab as a token (a
		// syntax error), later versions as white space.
		return syntaxErr("syntax error at or near \"\v\"")
	}
	return nil
}

// isOperatorChar reports whether t is one byte of an operator (a comma
// and a dot too: no statement ends with them either).
func isOperatorChar(l *lexer, t token) bool {
	return t.kind == tPunct && t.end-t.start == 1 && strings.IndexByte(",+-/<>=~!@#%^&|?:.$", l.s[t.start]) >= 0
}

// rejectPlan is the plan of a text refused whole with err.
func rejectPlan(sql string, err error) *Plan {
	return &Plan{Err: err, Statements: []Statement{{Kind: Reject, Text: sql, Err: err}}}
}

// span is one statement: tokens [a, b) and text [start, end), terminated
// by a ';' or not.
type span struct {
	a, b       int
	start, end int
	terminated bool
}

// split cuts the token stream at ';', except inside parentheses (the
// actions of CREATE RULE … DO (…; …)) and inside the BEGIN … END body of
// a CREATE statement (SQL-standard function bodies, triggers, procedures).
// Spans without tokens (white space, comments) are dropped.
func split(l *lexer) []span {
	var out []span
	a, start, depth, parens := 0, 0, 0, 0
	creating := false
	for i := 0; i < len(l.toks); i++ {
		t := l.toks[i]
		if i == a {
			creating = l.is(t, "create")
		}
		if creating && t.kind == tIdent {
			switch {
			case l.is(t, "begin") && (l.d != Postgres || i+1 < len(l.toks) && l.is(l.toks[i+1], "atomic")):
				depth++
			case l.is(t, "case") && depth > 0:
				depth++
			case l.is(t, "end") && depth > 0:
				if i+1 < len(l.toks) {
					n := l.toks[i+1]
					if l.is(n, "if") || l.is(n, "loop") || l.is(n, "while") || l.is(n, "repeat") {
						i++ // closes an opener that was not counted
						continue
					}
					if l.is(n, "case") {
						i++ // END CASE: do not count this CASE as an opener
					}
				}
				depth--
			}
		}
		if l.punct(t, '(') {
			parens++
		} else if l.punct(t, ')') {
			parens--
		}
		if depth == 0 && parens <= 0 && l.punct(t, ';') {
			if i > a {
				out = append(out, span{a: a, b: i, start: start, end: t.start, terminated: true})
			}
			a, start = i+1, t.end
		}
	}
	if len(l.toks) > a {
		out = append(out, span{a: a, b: len(l.toks), start: start, end: len(l.s)})
	}
	return out
}

// stmt is the analysis state of one statement.
type stmt struct {
	l       *lexer
	sp      span
	toks    []token
	match   []int // for a '(' token, the index of its ')' (len(toks) if none)
	group   []int // innermost parenthesised group of each token; 0 is the top
	grps    []grp
	found   []found
	ddlPos  int        // token after SEQUENCE in sequence DDL
	ddlTemp bool       // CREATE TEMP|TEMPORARY SEQUENCE: the database's
	ident   *identOpts // options of an identity column (table.go), or nil
}

type grp struct {
	parent      int
	open, close int // token indexes of '(' and ')'; -1 and len(toks) for the top
}

// found is a recognised call site.
type found struct {
	call   Call
	ts, te int    // tokens [ts, te)
	column string // PostgreSQL's column name for it
	err    error  // the call is recognised but cannot be served (0A000)
}

func (s *stmt) tok(i int) token {
	if i < 0 || i >= len(s.toks) {
		return token{}
	}
	return s.toks[i]
}

func (s *stmt) is(i int, w string) bool { return s.l.is(s.tok(i), w) }
func (s *stmt) punct(i int, c byte) bool {
	return i >= 0 && i < len(s.toks) && s.l.punct(s.toks[i], c)
}
func (s *stmt) text(i int) string { return s.l.text(s.toks[i]) }

// src returns the source text of tokens [a, b).
func (s *stmt) src(a, b int) string {
	if b <= a {
		return ""
	}
	return s.l.s[s.toks[a].start:s.toks[b-1].end]
}

func (s *stmt) structure() {
	n := len(s.toks)
	s.match = make([]int, n)
	s.group = make([]int, n)
	s.grps = append(s.grps[:0], grp{parent: -1, open: -1, close: n})
	cur := 0
	for i := range s.toks {
		s.group[i] = cur
		switch {
		case s.punct(i, '('):
			s.grps = append(s.grps, grp{parent: cur, open: i, close: n})
			s.match[i] = n
			cur = len(s.grps) - 1
		case s.punct(i, ')') && cur != 0:
			g := &s.grps[cur]
			g.close = i
			s.match[g.open] = i
			cur = g.parent
			s.group[i] = cur
		}
	}
}

// analyze plans one statement.
func analyze(l *lexer, sp span) Statement {
	s := &stmt{l: l, sp: sp, toks: l.toks[sp.a:sp.b]}
	st := Statement{Kind: PassThrough, Text: l.s[sp.start:sp.end]}
	if ddl, ok := s.sequenceDDL(); ok {
		if l.d == Postgres && (s.ddlTemp || s.tempDDLName()) {
			return st // a temporary sequence: the database's (temp.go)
		}
		if l.d == Postgres && s.is(0, "alter") {
			// OWNER TO is a relation's, not a sequence option: the
			// database's for a store sequence's fenced twin.
			if c := s.alterTable(); c != nil && c.Action == "OWNER TO" {
				c.Sequence = true
				st.Kind, st.Catalog = CatalogDDL, c
				return st
			}
		}
		st.Kind = SequenceDDL
		st.DDL, st.Err = s.parseDDL(ddl)
		if st.Err != nil {
			st.Kind, st.DDL = Reject, nil
		}
		return st
	}
	s.structure()
	s.findCalls()
	if l.d == Postgres && s.tableDDL(&st) {
		return st // CREATE, ALTER or DROP TABLE: table.go
	}
	if len(s.found) == 0 {
		if cols, calls, ok := s.regclassItems(); ok {
			st.Kind, st.Columns, st.Calls = Local, cols, calls
			return st
		}
		if l.d == Postgres {
			if c := s.catalog(); c != nil {
				st.Kind, st.Catalog = CatalogDDL, c
			}
		}
		return st
	}
	verb, vi := s.verb()
	switch verb {
	case "create", "alter":
		// A definition (DEFAULT nextval('s'), a view, a function body) is
		// evaluated later by the database itself, from its own sequence: its
		// values would collide with the store's, so it is refused; unless
		// its sequences are all temporary ones, the database's.
		if s.allTemp() {
			return st
		}
		st.Kind, st.Err = Reject, unsupported(
			"%s in a definition would be evaluated by the database from its own sequence, whose values collide with seqshim's: "+
				"leave it out and insert %s explicitly (INSERT … VALUES (%s, …))",
			s.src(s.found[0].ts, s.found[0].te), s.src(s.found[0].ts, s.found[0].te), s.src(s.found[0].ts, s.found[0].te))
		st.NativeOnly = s.nativeOnly()
		return st
	case "drop", "comment", "grant", "revoke":
		return st
	case "select", "values", "with", "table", "insert", "replace", "call", "set", "do":
	case "update", "delete", "merge":
		// Once per row, unless in a scalar subquery: see perRow below.
	default:
		st.Kind, st.Err = Reject, unsupported(
			"sequence calls are not supported in %s statements: %s is served by seqshim, not by the database; run the statement without it",
			strings.ToUpper(s.text(vi)), s.src(s.found[0].ts, s.found[0].te))
		return st
	}
	for _, f := range s.found {
		if f.err != nil {
			st.Kind, st.Err = Reject, f.err
			return st
		}
	}
	calls := make([]Call, len(s.found))
	for i, f := range s.found {
		calls[i] = f.call
	}
	st.Calls = calls
	if cols, series, ok := s.local(); ok {
		st.Kind, st.Columns, st.Series = Local, cols, series
		s.aliases(st.Calls) // for a session that sends it: a temporary sequence's call left as written
		return st
	}
	for _, f := range s.found {
		if s.initPlan(f.ts, f.te) || f.call.Temp {
			continue // (SELECT nextval('s')): evaluated once per statement; a temporary sequence's: the database's
		}
		if why := s.perRow(f.ts); why != "" {
			st.Kind, st.Calls, st.Err = Reject, nil, unsupported(
				"%s is evaluated once per row %s, but seqshim serves one value per call site: "+
					"get the values first (one per row, e.g. SELECT nextval('s') FROM generate_series(1, n)) and pass them as parameters",
				s.src(f.ts, f.te), why)
			st.NativeOnly = s.nativeOnly()
			return st
		}
	}
	st.Kind = Rewrite
	s.aliases(st.Calls)
	return st
}

// nativeOnly returns the calls found, for [Statement.NativeOnly], when
// each may name a session's temporary sequence: written in pg_temp,
// without a schema, or as a bind argument; nil otherwise.
func (s *stmt) nativeOnly() []Call {
	if s.l.d != Postgres {
		return nil
	}
	calls := make([]Call, 0, len(s.found))
	for _, f := range s.found {
		c := f.call
		if f.err != nil || c.Func == Lastval || !c.Temp && !c.Unqualified && c.NameArg < 0 || c.Name == "" && c.NameArg < 0 {
			return nil
		}
		calls = append(calls, c)
	}
	return calls
}

// allTemp reports whether every call found names a sequence in a
// temporary schema.
func (s *stmt) allTemp() bool {
	for _, f := range s.found {
		if !f.call.Temp {
			return false
		}
	}
	return true
}

// verb returns the statement's first keyword (lower case), looking inside
// leading parentheses, and its token index.
func (s *stmt) verb() (string, int) {
	for i := range s.toks {
		if s.punct(i, '(') {
			continue
		}
		if s.toks[i].kind == tIdent {
			return strings.ToLower(s.text(i)), i
		}
		return "", i
	}
	return "", 0
}

var seqFuncs = map[string]Func{
	"nextval": Nextval, "currval": Currval, "lastval": Lastval, "setval": Setval,
	"getnextsequencevalue": Nextval,
}

// findCalls records every sequence call site in token order.
func (s *stmt) findCalls() {
	for i := 0; i < len(s.toks); {
		if f, ok := s.callAt(i); ok && !s.spansMark(f) {
			f.call.Temp = s.l.d == Postgres && f.call.Name != "" && !f.call.Unqualified && IsTempName(f.call.Name)
			s.found = append(s.found, f)
			i = f.te
			continue
		}
		i++
	}
}

// spansMark reports whether a call site straddles a /*! or */ marker of
// MySQL: replacing it would unbalance the comment, so it is not taken for
// a call.
func (s *stmt) spansMark(f found) bool {
	start, end := s.toks[f.ts].start, s.toks[f.te-1].end
	for _, m := range s.l.marks {
		if m > start && m < end {
			return true
		}
	}
	return false
}

// isName reports whether token i can be part of a name.
func (s *stmt) isName(i int) bool {
	k := s.tok(i).kind
	return k == tIdent || k == tQIdent
}

// chain reads a dotted name from token i: its parts' token indexes.
func (s *stmt) chain(i int) []int {
	if !s.isName(i) {
		return nil
	}
	parts := []int{i}
	for s.punct(i+1, '.') && s.isName(i+2) {
		i += 2
		parts = append(parts, i)
	}
	return parts
}

func (s *stmt) callAt(i int) (found, bool) {
	t := s.tok(i)
	if !s.isName(i) || s.punct(i-1, '.') {
		return found{}, false
	}
	// NEXT VALUE FOR name
	if t.kind == tIdent && s.is(i, "next") && s.is(i+1, "value") && s.is(i+2, "for") {
		parts := s.chain(i + 3)
		if parts == nil {
			return found{}, false
		}
		f := s.newFound(Nextval, i, parts[len(parts)-1]+1, "nextval")
		f.call.Name, f.call.Unqualified, f.err = s.identName(parts)
		return f, true
	}
	// [pg_catalog.]func(args)
	j := i
	if s.funcWord(i) == "pg_catalog" && s.punct(i+1, '.') {
		j = i + 2
	}
	if w := s.funcWord(j); w != "" && s.punct(j+1, '(') && (w != "getnextsequencevalue" || s.tok(j).kind == tIdent) {
		if fn, ok := seqFuncs[w]; ok {
			return s.funcCall(fn, i, j)
		}
	}
	// name.NEXTVAL, name.CURRVAL
	parts := s.chain(i)
	if len(parts) >= 2 {
		last := parts[len(parts)-1]
		var fn Func
		switch {
		case s.is(last, "nextval"):
			fn = Nextval
		case s.is(last, "currval"):
			fn = Currval
		}
		if fn != 0 && !s.punct(last+1, '(') && !s.punct(last+1, '.') {
			f := s.newFound(fn, i, last+1, fn.String())
			f.call.Name, f.call.Unqualified, f.err = s.identName(parts[:len(parts)-1])
			return f, true
		}
	}
	return found{}, false
}

// funcWord is the name token i gives a function (or its schema) as
// PostgreSQL resolves it: an unquoted word folded to lower case, and in
// PostgreSQL a quoted identifier as written ("nextval"('s') is nextval,
// which the database would otherwise evaluate from its own sequence;
// "NEXTVAL" is another function). "" for anything else.
func (s *stmt) funcWord(i int) string {
	switch t := s.tok(i); {
	case t.kind == tIdent:
		return strings.ToLower(s.text(i))
	case t.kind == tQIdent && s.l.d == Postgres:
		txt := s.text(i)
		if txt[0] == '"' {
			return strings.ReplaceAll(txt[1:len(txt)-1], `""`, `"`)
		}
		if v, ok := unescapeUnicode(strings.ReplaceAll(txt[3:len(txt)-1], `""`, `"`)); ok { // U&"…"
			return v
		}
	}
	return ""
}

func (s *stmt) newFound(fn Func, ts, te int, column string) found {
	base := s.sp.start
	return found{
		call: Call{
			Func: fn, NameArg: -1, Value: Const(0), IsCalled: Const(1),
			Start: s.toks[ts].start - base, End: s.toks[te-1].end - base,
		},
		ts: ts, te: te, column: column,
	}
}

// funcCall reads the call of fn whose name token is j, starting at token i.
func (s *stmt) funcCall(fn Func, i, j int) (found, bool) {
	open := j + 1
	end := s.match[open]
	if end >= len(s.toks) {
		return found{}, false
	}
	args := s.args(open, end)
	want := map[Func][2]int{Nextval: {1, 1}, Currval: {1, 1}, Lastval: {0, 0}, Setval: {2, 3}}[fn]
	if len(args) < want[0] || len(args) > want[1] {
		return found{}, false // no such function: the database says so
	}
	for _, a := range args {
		if a[1] == a[0] {
			return found{}, false // f(a, ): a syntax error for the database to report
		}
	}
	column := fn.String()
	if strings.EqualFold(s.text(j), "getnextsequencevalue") {
		column = "getnextsequencevalue"
	}
	f := s.newFound(fn, i, end+1, column)
	call := &f.call
	if fn == Lastval {
		return f, true
	}
	// Strict functions: a NULL argument gives NULL without touching the
	// sequence.
	if s.isNull(args[0]) {
		call.Null = true
	} else {
		call.Name, call.Unqualified, call.NameArg, f.err = s.nameOperand(args[0])
	}
	if f.err != nil || fn != Setval {
		return f, true
	}
	if s.isNull(args[1]) {
		call.Null = true
	} else if call.Value, f.err = s.valueOperand(args, i, end); f.err != nil {
		return f, true
	}
	if len(args) == 3 {
		if s.isNull(args[2]) {
			call.Null = true
		} else if call.IsCalled, f.err = s.isCalledOperand(args[2], i, end); f.err != nil {
			return f, true
		}
	}
	return f, true
}

// args splits the tokens between '(' open and ')' close at commas of that
// level: token ranges [a, b). No tokens at all is no argument.
func (s *stmt) args(open, close int) [][2]int {
	if close == open+1 {
		return nil
	}
	var out [][2]int
	a := open + 1
	for i := a; i < close; i++ {
		if s.punct(i, '(') {
			i = s.match[i]
			continue
		}
		if s.punct(i, ',') {
			out = append(out, [2]int{a, i})
			a = i + 1
		}
	}
	return append(out, [2]int{a, close})
}

// casts reports whether tokens [a, b) are only ::type casts to one of types.
func (s *stmt) casts(a, b int, types ...string) bool {
	for i := a; i < b; i += 2 {
		if s.tok(i).kind != tCast || i+1 >= b {
			return false
		}
		ok := false
		for _, t := range types {
			ok = ok || s.is(i+1, t)
		}
		if !ok {
			return false
		}
	}
	return true
}

var nameTypes = []string{"regclass", "text", "varchar", "name"}
var intTypes = []string{"int8", "bigint", "int4", "integer", "int", "int2", "smallint"}

// nameOperand reads a sequence name argument: a string literal or a bind
// parameter (optionally cast to regclass or text), or in MySQL and SQLite an
// identifier.
func (s *stmt) nameOperand(a [2]int) (name string, unqualified bool, arg int, err error) {
	bad := func() (string, bool, int, error) {
		return "", false, -1, unsupported("the sequence name in %s must be a string literal or a bind parameter", s.src(a[0], a[1]))
	}
	t := s.tok(a[0])
	switch {
	case t.kind == tString && s.casts(a[0]+1, a[1], nameTypes...):
		v, ok := s.l.stringValue(t)
		if !ok {
			return bad()
		}
		name, qualified, err := sequence.ParseRelation(v)
		return name, !qualified, -1, err
	case t.kind == tParam && s.casts(a[0]+1, a[1], nameTypes...):
		return "", false, t.arg, nil
	case s.l.d != Postgres && s.isName(a[0]):
		parts := s.chain(a[0])
		if parts[len(parts)-1]+1 != a[1] {
			return bad()
		}
		name, unqualified, err := s.identName(parts)
		return name, unqualified, -1, err
	}
	return bad()
}

// identName canonicalises a dotted name lexed from SQL text, by the same
// regclass rules as a string literal, and reports whether it has no schema.
func (s *stmt) identName(parts []int) (string, bool, error) {
	var b strings.Builder
	for k, p := range parts {
		if k > 0 {
			b.WriteByte('.')
		}
		txt := s.text(p)
		if s.tok(p).kind == tIdent {
			b.WriteString(txt)
			continue
		}
		var v string
		switch txt[0] {
		case '"':
			v = strings.ReplaceAll(txt[1:len(txt)-1], `""`, `"`)
		case '`':
			v = strings.ReplaceAll(txt[1:len(txt)-1], "``", "`")
		case '[':
			v = txt[1 : len(txt)-1]
		default: // U&"…"
			var ok bool
			if v, ok = unescapeUnicode(strings.ReplaceAll(txt[3:len(txt)-1], `""`, `"`)); !ok {
				return "", false, unsupported("cannot read the sequence name %s", txt)
			}
		}
		b.WriteString(`"` + strings.ReplaceAll(v, `"`, `""`) + `"`)
	}
	name, qualified, err := sequence.ParseRelation(b.String())
	return name, !qualified, err
}

// intOperand reads an integer constant (optionally signed, or a string
// holding one) or a bind parameter, optionally cast to an integer type.
func (s *stmt) intOperand(a [2]int) (Operand, bool) {
	i, sign := a[0], ""
	if s.punct(i, '-') || s.punct(i, '+') {
		sign = s.text(i)
		i++
	}
	t := s.tok(i)
	if i >= a[1] || !s.casts(i+1, a[1], intTypes...) {
		return Operand{}, false
	}
	switch t.kind {
	case tParam:
		return Operand{Arg: t.arg}, sign == ""
	case tNumber:
		v, err := strconv.ParseInt(sign+s.text(i), 10, 64)
		return Const(v), err == nil
	case tString:
		str, ok := s.l.stringValue(t)
		if !ok || sign != "" {
			return Operand{}, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(str), 10, 64)
		return Const(v), err == nil
	}
	return Operand{}, false
}

// boolOperand reads setval's is_called: true or false, a string PostgreSQL
// reads as a boolean, a bind parameter, or 0/1 outside PostgreSQL.
func (s *stmt) boolOperand(a [2]int) (Operand, bool) {
	t := s.tok(a[0])
	if !s.casts(a[0]+1, a[1], "bool", "boolean") {
		return Operand{}, false
	}
	b2o := func(b bool) (Operand, bool) {
		if b {
			return Const(1), true
		}
		return Const(0), true
	}
	switch t.kind {
	case tParam:
		return Operand{Arg: t.arg}, true
	case tIdent:
		switch strings.ToLower(s.text(a[0])) {
		case "true":
			return b2o(true)
		case "false":
			return b2o(false)
		}
	case tString:
		v, ok := s.l.stringValue(t)
		if !ok {
			return Operand{}, false
		}
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
			return b2o(true)
		case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
			return b2o(false)
		}
	case tNumber:
		if s.l.d != Postgres {
			switch s.text(a[0]) {
			case "0":
				return b2o(false)
			case "1":
				return b2o(true)
			}
		}
	}
	return Operand{}, false
}
