package rewrite

import (
	"errors"
	"slices"

	"github.com/seqshim/seqshim/sequence"
)

// The parser of table statements: CREATE TABLE and what alter and drop
// (tablealter.go) share, column definitions first.

// tableDDL plans CREATE TABLE, ALTER TABLE and DROP TABLE statements that
// concern sequence defaults. It returns false for any other statement, and
// for those it leaves to the rest of the analysis: a table statement
// without sequence defaults, CREATE TABLE AS, or text it cannot read
// (which the database then reports, unless it holds sequence calls).
func (s *stmt) tableDDL(st *Statement) bool {
	if !s.is(0, "create") && !s.is(1, "table") && !s.is(0, "truncate") || !s.balanced() {
		return false
	}
	for i := range s.toks {
		if s.tok(i).kind == tQIdent && s.text(i) == `""` {
			// PostgreSQL's scanner refuses it before anything else.
			if !s.mayHaveDefault() {
				return false
			}
			st.Kind, st.Err = Reject, syntaxErr(`zero-length delimited identifier at or near """"`)
			return true
		}
	}
	switch {
	case s.is(0, "create"):
		return s.createTable(st)
	case s.is(0, "alter") && s.is(1, "table"):
		return s.alterTableDDL(st)
	case s.is(0, "drop") && s.is(1, "table"):
		return s.dropTable(st)
	case s.is(0, "truncate"):
		return s.truncateTable(st)
	}
	return false
}

// truncateTable reads TRUNCATE [TABLE] [ONLY] name [*] [, …] RESTART
// IDENTITY [CASCADE | RESTRICT], which restarts the sequences the
// truncated tables' columns own; without RESTART IDENTITY it is not
// table DDL.
func (s *stmt) truncateTable(st *Statement) bool {
	i := 1
	if s.is(i, "table") {
		i++
	}
	t := &TableDDL{Op: TableTruncate, text: st.Text}
	for {
		if s.is(i, "only") {
			t.Only, i = true, i+1
		}
		name, unqualified, next, err := s.ddlName(i)
		if err != nil {
			return false
		}
		t.Names, t.Unqualified = append(t.Names, name), append(t.Unqualified, unqualified)
		if i = next; s.punct(i, '*') {
			i++
		}
		if !s.punct(i, ',') {
			break
		}
		i++
	}
	if !s.is(i, "restart") || !s.is(i+1, "identity") {
		return false // CONTINUE IDENTITY, the default: nothing restarts
	}
	i += 2
	if s.isAny(i, "cascade", "restrict") {
		t.Cascade = s.is(i, "cascade")
		i++
	}
	if i != len(s.toks) || len(s.found) > 0 {
		return false
	}
	st.Kind, st.Catalog, st.Table = CatalogDDL, &Catalog{Op: ColumnDefaults}, t
	return true
}

// balanced reports whether the statement's parentheses are.
func (s *stmt) balanced() bool {
	depth := 0
	for i := range s.toks {
		switch {
		case s.punct(i, '('):
			depth++
		case s.punct(i, ')'):
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// off returns the byte offset of token i's start in the statement's text.
func (s *stmt) off(i int) int { return s.toks[i].start - s.sp.start }

// offEnd returns the byte offset of the end of token i in the statement's
// text.
func (s *stmt) offEnd(i int) int { return s.toks[i].end - s.sp.start }

// colName returns the identifier at token i as PostgreSQL stores it.
func (s *stmt) colName(i int) (string, error) {
	name, _, err := s.identName([]int{i})
	if err != nil {
		return "", err
	}
	return sequence.RelName(name), nil
}

// serialTypes are the serial pseudo-types and the type they stand for.
var serialTypes = map[string]sequence.Type{
	"smallserial": sequence.Smallint, "serial2": sequence.Smallint,
	"serial": sequence.Integer, "serial4": sequence.Integer,
	"bigserial": sequence.Bigint, "serial8": sequence.Bigint,
}

// mayHaveDefault reports whether the statement has anything that can make
// a sequence default: a serial type name, IDENTITY or a sequence call.
func (s *stmt) mayHaveDefault() bool {
	if len(s.found) > 0 {
		return true
	}
	for i := range s.toks {
		if s.isName(i) {
			if _, ok := serialTypes[s.aliasNamePG(i)]; ok || s.is(i, "identity") {
				return true
			}
		}
	}
	return false
}

// createTable plans CREATE [TEMP | UNLOGGED] TABLE: a temporary table is
// the database's, as it is.
func (s *stmt) createTable(st *Statement) bool {
	i := 1
	temp := false
	t := &TableDDL{Op: TableCreate, text: st.Text}
	switch {
	case s.isAny(i, "temp", "temporary"):
		temp, i = true, i+1
	case s.isAny(i, "local", "global") && s.isAny(i+1, "temp", "temporary"):
		temp, i = true, i+2
	case s.is(i, "unlogged"):
		t.Unlogged, i = true, i+1
	}
	if !s.is(i, "table") {
		return false
	}
	i++
	if s.is(i, "if") && s.is(i+1, "not") && s.is(i+2, "exists") {
		t.IfNotExists, i = true, i+3
	}
	name, unqualified, i, err := s.ddlName(i)
	if err != nil {
		return false // the database reports it
	}
	if temp || !unqualified && IsTempName(name) {
		// A temporary table and its sequences are the session's own: the
		// database serves them, and whatever its column defaults name
		// (a store sequence is not in the database: 42P01, which the
		// session turns into a 0A000 naming it).
		st.Kind = PassThrough
		return true
	}
	t.Names, t.Unqualified = []string{name}, []bool{unqualified}
	// The form: a column list, OF type, PARTITION OF parent, or AS query.
	var typed, partition, like, inherits bool
	open := -1
	switch {
	case s.punct(i, '('):
		open = i
	case s.is(i, "of") || s.is(i, "partition") && s.is(i+1, "of"):
		typed, partition = s.is(i, "of"), s.is(i, "partition")
		i += 1 + btoi(partition)
		parts := s.chain(i)
		if parts == nil {
			return false
		}
		if i = parts[len(parts)-1] + 1; s.punct(i, '(') {
			open = i
		}
	default:
		return false // CREATE TABLE AS, or text the database rejects
	}
	after := i
	if open >= 0 {
		if after = s.match[open] + 1; after > len(s.toks) {
			return false
		}
	}
	for k := after; k < len(s.toks); k++ {
		switch {
		case s.group[k] != 0:
		case s.is(k, "as"):
			return false // CREATE TABLE t (a, b) AS …: column names, not definitions
		case s.is(k, "inherits"):
			inherits = true
		}
	}
	var errs tableErrs
	var covered [][2]int // token ranges of the nextval defaults read
	if open >= 0 {
		s.elements(open+1, s.match[open], func(a, b int) {
			switch {
			case s.is(a, "like"):
				like = true
				return
			case s.constraintStart(a):
				return
			}
			c, ok := s.columnDef(a, b, typed || partition, name, &errs, &covered)
			if ok {
				t.Columns = append(t.Columns, c)
			}
		})
	}
	if done, ours := s.syntaxOrUncovered(st, &errs, covered); done {
		return ours
	}
	if (like || inherits) && !typed && !partition && errs.first() == nil {
		// The database makes the columns (those LIKE copies, those
		// INHERITS merges) with their defaults and sequences, as written;
		// the session reads them back once it ran.
		t.ReadBack = true
		st.Kind, st.Catalog, st.Table = CatalogDDL, &Catalog{Op: ColumnDefaults}, t
		return true
	}
	var with *ColumnDef // the first column with a sequence default
	for k := range t.Columns {
		if t.Columns[k].Default != nil && with == nil {
			with = &t.Columns[k]
		}
	}
	if with == nil {
		return false // no sequence default: not ours
	}
	if with != nil {
		var err error
		switch {
		case with.Default.Kind.IsIdentity() && typed:
			err = unsupported("identity columns are not supported on typed tables") // PostgreSQL's own refusal
		case with.Default.Kind.IsIdentity() && partition:
			err = unsupported("identity columns are not supported on partitions")
		case typed:
			err = unsupportedTable(with, "a typed table", "seqshim does not see the columns OF gives", "write the columns out instead of OF")
		case partition:
			err = unsupportedTable(with, "a partition", "a partition takes its columns from the partitioned table", "give the partitioned table the default")
		}
		if err != nil {
			st.Kind, st.Err = Reject, err
			return true
		}
	}
	if err := errs.first(); err != nil {
		st.Kind, st.Err = Reject, err
		return true
	}
	st.Kind, st.Catalog, st.Table = CatalogDDL, &Catalog{Op: ColumnDefaults}, t
	return true
}

// unsupportedTable refuses a sequence default in a table that seqshim does
// not serve them for: why not, and what to do.
func unsupportedTable(c *ColumnDef, table, why, fix string) error {
	return unsupported("seqshim: column %q of %s is %s, a default seqshim would serve from its sequence store, "+
		"which it does only in regular tables whose columns are all written out (%s): %s, "+
		"or give the column no sequence default and insert its values", c.Name, table, defaultWords(c.Default), why, fix)
}

// defaultWords says what a sequence default is, for messages.
func defaultWords(d *DefaultDef) string {
	switch {
	case d.Serial:
		return "serial"
	case d.Kind.IsIdentity():
		return "an identity column"
	}
	return "DEFAULT nextval"
}

// syntaxOrUncovered ends the planning of a table statement that has a
// syntax error (a Reject when it may have a sequence default; otherwise not
// ours: the database reports it) or sequence calls outside the defaults it
// read: done is true then, and ours what the planner returns.
func (s *stmt) syntaxOrUncovered(st *Statement, errs *tableErrs, covered [][2]int) (done, ours bool) {
	if errs[phaseSyntax] != nil {
		if !s.mayHaveDefault() {
			return true, false
		}
		st.Kind, st.Err = Reject, errs[phaseSyntax]
		return true, true
	}
	if s.uncovered(st, covered) {
		return true, true
	}
	return false, false
}

// uncovered rejects the statement when it has a sequence call that is not
// one of the nextval defaults read (covered): the database would evaluate
// it from its own sequence.
func (s *stmt) uncovered(st *Statement, covered [][2]int) bool {
	for _, f := range s.found {
		ok := false
		for _, r := range covered {
			ok = ok || f.ts >= r[0] && f.te <= r[1]
		}
		if !ok {
			call := s.src(f.ts, f.te)
			st.Kind, st.Err = Reject, unsupported(
				"%s in a definition would be evaluated by the database from its own sequence, whose values collide with seqshim's: "+
					"leave it out and insert %s explicitly (INSERT … VALUES (%s, …))", call, call, call)
			return true
		}
	}
	return false
}

// elements calls f for each comma-separated element [a, b) of tokens
// [from, to), at the level of from (outside parentheses and brackets); an
// empty element is a syntax error that f sees as a == b.
func (s *stmt) elements(from, to int, f func(a, b int)) {
	a, brackets := from, 0
	for k := from; k <= to; k++ {
		switch {
		case k == to:
		case s.punct(k, '('):
			k = s.match[k]
			continue
		case s.punct(k, '['):
			brackets++
		case s.punct(k, ']'):
			brackets--
		}
		if k == to || brackets <= 0 && s.punct(k, ',') {
			if a == k && k == to && a == from {
				return // no elements at all: CREATE TABLE t ()
			}
			f(a, k)
			a = k + 1
		}
	}
}

// constraintStart reports whether token a starts a table constraint.
func (s *stmt) constraintStart(a int) bool {
	return s.isAny(a, "constraint", "check", "unique", "primary", "foreign") ||
		s.is(a, "exclude") && (s.punct(a+1, '(') || s.is(a+1, "using"))
}

// qualWords start a column constraint, and so end a type or a DEFAULT
// expression.
var qualWords = []string{"constraint", "not", "null", "unique", "primary", "check", "default", "generated",
	"references", "collate", "deferrable", "initially"}

// qualEvent is a column constraint that parse analysis checks.
type qualEvent uint8

const (
	evNull qualEvent = iota + 1
	evNotNull
	evDefault
	evIdentity
	evGenerated
)

// columnDef reads a column definition from tokens [a, b): name, type
// (none in the typed form of OF and PARTITION OF), COMPRESSION, OPTIONS and
// constraints. Errors go to errs by phase; covered gets the tokens of the
// nextval default it reads. ok is false when the definition is unreadable.
func (s *stmt) columnDef(a, b int, typed bool, table string, errs *tableErrs, covered *[][2]int) (c ColumnDef, ok bool) {
	if a == b || !s.isName(a) {
		errs.note(phaseSyntax, s.syntaxAt(a))
		return c, false
	}
	name, err := s.colName(a)
	if err != nil {
		errs.note(phaseSyntax, err)
		return c, false
	}
	c.Name, c.Start, c.End = name, s.off(a), s.offEnd(b-1)
	k := a + 1
	ts, te := k, k
	if typed {
		if s.is(k, "with") && s.is(k+1, "options") {
			k += 2
		}
	} else {
		if k >= b {
			errs.note(phaseSyntax, s.syntaxAt(k))
			return c, false
		}
		k = s.typeEnd(k, b)
		te = k
		if j := s.notInType(ts, te); j >= 0 {
			errs.note(phaseSyntax, s.syntaxAt(j))
			return c, false
		}
		c.TypeText = s.src(ts, te)
		c.seqType, c.seqTypeErr = s.columnSeqType(ts, te)
		c.typeStart, c.typeEnd = s.off(ts), s.offEnd(te-1)
		if s.is(k, "compression") {
			if k+1 >= b || !s.isName(k+1) {
				errs.note(phaseSyntax, s.syntaxAt(k+1))
				return c, false
			}
			k += 2
		}
		if s.is(k, "options") && s.punct(k+1, '(') {
			k = s.match[k+1] + 1
		}
	}
	c.qualAt = s.offEnd(k - 1)
	q, ok := s.columnQuals(&c, k, b, errs, covered)
	if !ok {
		return c, false
	}

	// A serial type, the first thing PostgreSQL's parse analysis
	// (transformColumnDefinition) looks at.
	var serial *DefaultDef
	if !typed && s.isName(ts) && !s.is(ts, "setof") {
		if st, ok := serialTypes[s.aliasNamePG(ts)]; ok && (ts+1 == te || !s.punct(ts+1, '.')) {
			serial = &DefaultDef{Kind: sequence.DefaultNextval, Serial: true, Type: st, Clauses: sequence.Clauses{Type: sequence.TypeOf(st)}}
			switch j := ts + 1; {
			case j == te:
			case s.hasArrayBounds(j, te):
				errs.note(phaseAnalysis, unsupported("array of serial is not implemented"))
			case s.punct(j, '('):
				errs.note(phaseTable, syntaxErr("type modifier is not allowed for type %q", st.String()))
			default:
				errs.note(phaseSyntax, s.syntaxAt(j))
			}
			// It gets a DEFAULT and a NOT NULL after the constraints written.
			q.events = append(q.events, evDefault, evNotNull)
		}
	}
	errs.note(phaseAnalysis, q.analyze(c.Name, sequence.RelName(table)))
	c.anyDefault = slices.Contains(q.events, evDefault) || slices.Contains(q.events, evGenerated) || slices.Contains(q.events, evIdentity)

	switch {
	case serial != nil:
		c.Default = serial
	case q.identity != nil:
		o := &identOpts{create: true}
		if !typed {
			typ, err := s.columnSeqType(ts, te)
			switch code := sqlState(err); {
			case err == nil:
				o.typeKnown, o.typ = true, typ
			case isSyntax(err):
				errs.note(phaseSyntax, err)
				return c, false
			case code == sequence.CodeSyntaxError:
				errs.note(phaseTable, err) // a type modifier: refused when the table is created
			case code == codeUndefinedObject:
				errs.note(phaseAnalysis, err) // no such type
			default:
				o.typeErr = err // checked with the sequence's options
			}
		}
		errs.note(phaseSequence, s.identityOptions(q.identOpen, o, q.identity, errs))
		if o.typeKnown {
			q.identity.Type, q.identity.Clauses.Type = o.typ, sequence.TypeOf(o.typ)
		}
		c.Default = q.identity
	case q.nextval != nil:
		if !typed {
			if typ, err := s.columnSeqType(ts, te); err == nil {
				q.nextval.Type = typ
			}
		}
		c.Default = q.nextval
	}
	return c, true
}

// columnQuals is what a column's constraints say about its default.
type columnQuals struct {
	events    []qualEvent // the constraints parse analysis checks, in order
	identity  *DefaultDef // the first GENERATED … AS IDENTITY
	identOpen int         // the '(' of its options, or -1
	nextval   *DefaultDef // the first DEFAULT nextval('s')
}

// columnQuals reads a column's constraints, tokens [k, b), and the spans
// of its sequence default into c.
func (s *stmt) columnQuals(c *ColumnDef, k, b int, errs *tableErrs, covered *[][2]int) (q columnQuals, ok bool) {
	q.identOpen = -1
	syntax := func(i int) (columnQuals, bool) {
		errs.note(phaseSyntax, s.syntaxAt(i))
		return q, false
	}
	for k < b {
		start, named := k, false
		if s.is(k, "constraint") {
			if !s.isName(k + 1) {
				return syntax(k + 1)
			}
			k, named = k+2, true
		}
		elem := k
		switch {
		case s.is(k, "not") && s.is(k+1, "null"):
			q.events = append(q.events, evNotNull)
			c.NotNull = true
			k += 2
		case s.is(k, "null"):
			q.events = append(q.events, evNull)
			k++
		case s.is(k, "unique"):
			k++
			if s.is(k, "nulls") {
				if k++; s.is(k, "not") {
					k++
				}
				if !s.is(k, "distinct") {
					return syntax(k)
				}
				k++
			}
			k = s.indexParams(k)
		case s.is(k, "primary"):
			if !s.is(k+1, "key") {
				return syntax(k + 1)
			}
			k = s.indexParams(k + 2)
		case s.is(k, "check"):
			if !s.punct(k+1, '(') || s.match[k+1] >= b {
				return syntax(k + 1)
			}
			if k = s.match[k+1] + 1; s.is(k, "no") && s.is(k+1, "inherit") {
				k += 2
			}
		case s.is(k, "default"):
			e := s.exprEnd(k+1, b)
			if e == k+1 {
				return syntax(k + 1)
			}
			q.events = append(q.events, evDefault)
			if d, err, isNext := s.nextvalDefault(k+1, e); isNext {
				errs.note(phaseAnalysis, err)
				if q.nextval == nil {
					q.nextval = d
					c.defStart, c.clauseStart, c.defEnd = s.off(start), s.off(elem), s.offEnd(e-1)
				}
				*covered = append(*covered, [2]int{k + 1, e})
			}
			k = e
		case s.is(k, "generated"):
			kind, open, stored, j := s.generated(k, b, errs)
			switch {
			case j < 0:
				return q, false
			case stored:
				q.events = append(q.events, evGenerated)
			default:
				q.events = append(q.events, evIdentity)
				if q.identity == nil {
					q.identity, q.identOpen = &DefaultDef{Kind: kind}, open
					c.defStart, c.clauseStart, c.defEnd = s.off(start), s.off(elem), s.offEnd(j-1)
				}
			}
			k = j
		case s.is(k, "references"):
			j, ok := s.referencesEnd(k+1, b)
			if !ok {
				return syntax(j)
			}
			k = j
		case !named && s.is(k, "collate"):
			parts := s.chain(k + 1)
			if parts == nil {
				return syntax(k + 1)
			}
			k = parts[len(parts)-1] + 1
		case !named && s.is(k, "not") && s.is(k+1, "deferrable"):
			k += 2
		case !named && s.is(k, "deferrable"):
			k++
		case !named && s.is(k, "initially") && s.isAny(k+1, "deferred", "immediate"):
			k += 2
		default:
			return syntax(k)
		}
	}
	return q, true
}

// generated reads GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(options)]
// or GENERATED ALWAYS AS (expr) STORED at token k, before b: the kind, the
// options' '(' (-1: none), whether it is a generated column, and the token
// after it (-1 after a syntax error, noted in errs).
func (s *stmt) generated(k, b int, errs *tableErrs) (kind sequence.Identity, open int, stored bool, end int) {
	j := k + 1
	switch {
	case s.is(j, "always"):
		kind, j = sequence.IdentityAlways, j+1
	case s.is(j, "by") && s.is(j+1, "default"):
		kind, j = sequence.IdentityByDefault, j+2
	default:
		errs.note(phaseSyntax, s.syntaxAt(j+btoi(s.is(j, "by"))))
		return 0, -1, false, -1
	}
	if !s.is(j, "as") {
		errs.note(phaseSyntax, s.syntaxAt(j))
		return 0, -1, false, -1
	}
	j++
	switch {
	case s.is(j, "identity"):
		j++
		open = -1
		if s.punct(j, '(') && s.match[j] < b {
			open, j = j, s.match[j]+1
		}
		return kind, open, false, j
	case s.punct(j, '(') && s.match[j] < b:
		j = s.match[j] + 1
		if !s.is(j, "stored") {
			errs.note(phaseSyntax, s.syntaxAt(j))
			return 0, -1, false, -1
		}
		if kind != sequence.IdentityAlways {
			errs.note(phaseSyntax, syntaxErr("for a generated column, GENERATED ALWAYS must be specified"))
		}
		return kind, -1, true, j + 1
	}
	errs.note(phaseSyntax, s.syntaxAt(j))
	return 0, -1, false, -1
}

// analyze checks the constraints as PostgreSQL's transformColumnDefinition
// does, and returns its first error.
func (q *columnQuals) analyze(column, table string) error {
	var sawNullable, notNull, sawDefault, sawIdentity, sawGenerated bool
	for _, ev := range q.events {
		var what string
		switch ev {
		case evNull, evNotNull:
			if sawNullable && notNull == (ev == evNull) {
				what = "conflicting NULL/NOT NULL declarations"
			}
			notNull, sawNullable = ev == evNotNull, true
		case evDefault:
			if sawDefault {
				what = "multiple default values specified"
			}
			sawDefault = true
		case evIdentity:
			switch {
			case sawIdentity:
				what = "multiple identity specifications"
			case sawNullable && !notNull:
				what = "conflicting NULL/NOT NULL declarations"
			}
			sawIdentity, notNull, sawNullable = true, true, true
		case evGenerated:
			if sawGenerated {
				what = "multiple generation clauses specified"
			}
			sawGenerated = true
		}
		switch {
		case what != "":
		case sawDefault && sawIdentity:
			what = "both default and identity specified"
		case sawDefault && sawGenerated:
			what = "both default and generation expression specified"
		case sawIdentity && sawGenerated:
			what = "both identity and generation expression specified"
		}
		if what != "" {
			return syntaxErr("%s for column %q of table %q", what, column, table)
		}
	}
	return nil
}

// identityOptions parses the parenthesised options of an identity column
// whose '(' is token open (-1: none) into d.
func (s *stmt) identityOptions(open int, o *identOpts, d *DefaultDef, errs *tableErrs) error {
	var toks []token
	if open >= 0 {
		if s.match[open] == open+1 {
			errs.note(phaseSyntax, s.syntaxAt(open+1)) // GENERATED … AS IDENTITY ()
			return nil
		}
		toks = s.toks[open+1 : s.match[open]]
		o.end = ")"
	}
	sub := &stmt{l: s.l, sp: s.sp, toks: toks, ident: o}
	var ddl DDL
	syntax, err := sub.parseOptions(&ddl, 0)
	if syntax != nil {
		errs.note(phaseSyntax, syntax)
		return nil
	}
	d.Clauses = ddl.Clauses
	d.Seq, d.SeqUnqualified = o.seq, o.unqualified
	return err
}

// typeEnd returns the token after a column's type starting at token k
// (which is always part of it), before b: the type ends at a constraint,
// COMPRESSION or OPTIONS.
func (s *stmt) typeEnd(k, b int) int {
	for first := true; k < b; first = false {
		switch {
		case s.punct(k, '('):
			k = s.match[k] + 1
			continue
		case first:
		case s.isAny(k, qualWords...), s.is(k, "compression"), s.is(k, "options") && s.punct(k+1, '('):
			return k
		}
		k++
	}
	return k
}

// notInType returns the first token of [a, b) that no type name has, -1
// when there is none: a type is names, dots, array brackets with a bound,
// and parenthesised modifiers.
func (s *stmt) notInType(a, b int) int {
	for k := a; k < b; k++ {
		switch t := s.tok(k); {
		case s.punct(k, '('):
			k = s.match[k]
		case t.kind == tIdent, t.kind == tQIdent, t.kind == tNumber, s.punct(k, '.'), s.punct(k, '['), s.punct(k, ']'):
		default:
			return k
		}
	}
	return -1
}

// hasArrayBounds reports whether tokens [a, b) of a type have array
// bounds: [] or ARRAY.
func (s *stmt) hasArrayBounds(a, b int) bool {
	for k := a; k < b; k++ {
		if s.punct(k, '[') || s.is(k, "array") {
			return true
		}
	}
	return false
}

// indexParams skips a column constraint's WITH (…) and USING INDEX
// TABLESPACE name.
func (s *stmt) indexParams(k int) int {
	if s.is(k, "with") && s.punct(k+1, '(') {
		k = s.match[k+1] + 1
	}
	if s.is(k, "using") && s.is(k+1, "index") && s.is(k+2, "tablespace") && s.isName(k+3) {
		k += 4
	}
	return k
}

// referencesEnd skips REFERENCES' table [(columns)] [MATCH …] [ON DELETE
// action] [ON UPDATE action] from token k; on a syntax error it returns
// false and the token at fault.
func (s *stmt) referencesEnd(k, b int) (int, bool) {
	parts := s.chain(k)
	if parts == nil {
		return k, false
	}
	k = parts[len(parts)-1] + 1
	if s.punct(k, '(') && s.match[k] < b {
		k = s.match[k] + 1
	}
	for k < b {
		switch {
		case s.is(k, "match") && s.isAny(k+1, "full", "partial", "simple"):
			k += 2
		case s.is(k, "on") && s.isAny(k+1, "delete", "update"):
			k += 2
			switch {
			case s.is(k, "no") && s.is(k+1, "action"):
				k += 2
			case s.isAny(k, "restrict", "cascade"):
				k++
			case s.is(k, "set") && s.isAny(k+1, "null", "default"):
				k += 2
				if s.punct(k, '(') && s.match[k] < b {
					k = s.match[k] + 1
				}
			default:
				return k, false
			}
		default:
			return k, true
		}
	}
	return k, true
}

// exprEnd returns the end of DEFAULT's expression (PostgreSQL's b_expr)
// starting at token k, before b: at a column constraint, outside
// parentheses, brackets and CASE … END. A NULL that follows an operator,
// FROM or DISTINCT, and a NOT that follows IS, belong to the expression.
func (s *stmt) exprEnd(k, b int) int {
	cases := 0
	for first := true; k < b; first = false {
		if !first && cases == 0 && s.isAny(k, qualWords...) {
			prev := s.tok(k - 1)
			operand := prev.kind == tPunct && !s.punct(k-1, ')') && !s.punct(k-1, ']') || s.isAny(k-1, "from", "distinct")
			if !(s.is(k, "null") && operand || s.is(k, "not") && s.is(k-1, "is")) {
				return k
			}
		}
		switch {
		case s.punct(k, '('):
			k = s.match[k] + 1
			continue
		case s.punct(k, '['):
			depth := 0
			for ; k < b; k++ {
				if s.punct(k, '[') {
					depth++
				} else if s.punct(k, ']') {
					if depth--; depth == 0 {
						break
					}
				} else if s.punct(k, '(') {
					k = s.match[k]
				}
			}
		case s.is(k, "case"):
			cases++
		case s.is(k, "end") && cases > 0:
			cases--
		}
		k++
	}
	return min(k, b)
}

// nextvalDefault reads a DEFAULT expression, tokens [a, b), that is
// nextval('s') or nextval('s'::regclass), optionally pg_catalog-qualified
// and in parentheses. isNext is false for any other expression; err is
// the name's error.
func (s *stmt) nextvalDefault(a, b int) (d *DefaultDef, err error, isNext bool) {
	for s.punct(a, '(') && s.match[a] == b-1 {
		a, b = a+1, b-1
	}
	if s.is(a, "pg_catalog") && s.punct(a+1, '.') {
		a += 2
	}
	if !s.is(a, "nextval") || !s.punct(a+1, '(') || s.match[a+1] != b-1 {
		return nil, nil, false
	}
	arg := a + 2
	if s.tok(arg).kind != tString {
		return nil, nil, false
	}
	switch end := b - 1; {
	case arg+1 == end:
	case s.tok(arg+1).kind == tCast:
		parts := s.chain(arg + 2)
		if parts == nil || parts[len(parts)-1]+1 != end || !s.is(parts[len(parts)-1], "regclass") ||
			len(parts) == 2 && !s.is(parts[0], "pg_catalog") || len(parts) > 2 {
			return nil, nil, false
		}
	default:
		return nil, nil, false
	}
	v, ok := s.l.stringValue(s.tok(arg))
	if !ok {
		return nil, nil, false
	}
	name, qualified, err := sequence.ParseRelation(v)
	if err != nil {
		return &DefaultDef{Kind: sequence.DefaultNextval}, err, true
	}
	return &DefaultDef{Kind: sequence.DefaultNextval, Seq: name, SeqUnqualified: !qualified}, nil, true
}

// columnSeqType reads a column type, tokens [a, b), as the type of an
// identity column's sequence, with PostgreSQL's errors: 22023 for a type
// that is not smallint, integer or bigint, 42704 for a type it does not
// know (a type defined in the database, which PostgreSQL refuses with
// 22023 too), 42601 for a type modifier.
func (s *stmt) columnSeqType(a, b int) (sequence.Type, error) {
	notInteger := sqlError(sequence.CodeInvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	parts := s.chain(a)
	if parts == nil {
		return 0, notInteger // SETOF, or no name
	}
	j := parts[len(parts)-1] + 1
	suffix := ""
	if j < b && s.isAny(j, "precision", "varying") {
		suffix, j = s.word(j), j+1
	}
	if suffix != "" {
		base := ""
		if len(parts) == 1 {
			base = s.word(parts[0])
		}
		if suffix == "precision" && base != "double" || suffix == "varying" && base != "character" && base != "char" && base != "bit" && base != "nchar" {
			return 0, s.syntaxAt(j - 1) // int varying: no such type in the grammar
		}
	}
	t, err := s.seqType(parts, suffix)
	if err != nil {
		if sqlState(err) == sequence.CodeInvalidParameterValue {
			return 0, notInteger
		}
		return 0, err
	}
	switch {
	case j >= b:
		return t, nil
	case s.hasArrayBounds(j, b):
		return 0, notInteger
	case s.punct(j, '(') && len(parts) == 1 && s.tok(parts[0]).kind == tIdent && keywordTypes[s.word(parts[0])] == t:
		return 0, s.syntaxAt(j) // bigint(5): the grammar has no modifier for these keywords
	case s.punct(j, '('):
		return 0, syntaxErr("type modifier is not allowed for type %q", s.plainName(parts))
	}
	return 0, s.syntaxAt(j)
}

// sqlState returns the SQLSTATE of a *sequence.Error, or "".
func sqlState(err error) string {
	var se *sequence.Error
	if errors.As(err, &se) {
		return se.Code
	}
	return ""
}

// isSyntax reports whether err is a syntax error of the parser ("syntax
// error at …"), not another 42601.
func isSyntax(err error) bool {
	var se *sequence.Error
	return errors.As(err, &se) && se.Code == sequence.CodeSyntaxError && len(se.Message) > 12 && se.Message[:12] == "syntax error"
}
